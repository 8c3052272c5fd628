from ham.text import normalise_ws, split_sentences, tokenize, words


def test_sentences_split_per_line_and_at_sentence_ends():
    assert split_sentences("1. Open the box. Take out the pump!\n\n2. Read the manual") == [
        "1. Open the box.", "Take out the pump!", "2. Read the manual"]
    assert split_sentences("It costs $5.00. Pay now.") == ["It costs $5.00.", "Pay now."]
    assert split_sentences("Section 4.7. Change the mode.") == ["Section 4.7.", "Change the mode."]


def test_a_bare_list_marker_does_not_end_a_sentence():
    assert split_sentences("A. Pick a part. B. Place it") == ["A. Pick a part.", "B. Place it"]
    assert split_sentences("12. Route the board") == ["12. Route the board"]


def test_cjk_full_stops_end_sentences():
    assert split_sentences("这是第一句。这是第二句！Third one.") == ["这是第一句。", "这是第二句！", "Third one."]


def test_words_and_normalisation():
    assert words("one two three four", 2) == "one two …"
    assert words("one two three four", 2, from_end=True) == "… three four"
    assert normalise_ws("  Open\n the   Menu ") == "open the menu"


def test_bm25_tokens_drop_stopwords_and_case():
    assert tokenize(["Open the Reconcile window"]) == [["open", "reconcile", "window"]]
