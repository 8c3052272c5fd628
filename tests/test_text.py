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


def test_bm25_tokens_match_bm25s_on_text_with_spaces():
    import bm25s

    texts = ["Select Actions → Reconcile, fill in the Closing balance as $1451.79", "GnuCash's 2nd e-mail"]
    assert tokenize(texts) == bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)


def test_cjk_text_gives_character_bigrams_not_one_token():
    # bm25s's rule alone makes the whole sentence one token, so no query word could ever match it
    tokens = tokenize(["电池的额定容量为5000mAh，USB接口"])[0]
    assert tokens == ["电池", "池的", "的额", "额定", "定容", "容量", "量为", "5000mah", "usb", "接口"]
    assert tokenize(["日本語のテキスト"])[0][:2] == ["日本", "本語"]
    assert tokenize(["单"])[0] == ["单"]
    # a query shares tokens with the passage that answers it
    assert set(tokenize(["额定容量是多少"])[0]) & set(tokens) >= {"额定", "容量"}


def test_zero_width_characters_are_invisible_to_matching_and_tokens():
    from ham.text import clean_text

    assert clean_text("Foot\u200bprint\u00ad editor\ufeff") == "Footprint editor"
    assert normalise_ws("Net\u200b name") == "net name"
    assert tokenize(["foot\u200bprint"]) == [["footprint"]]
