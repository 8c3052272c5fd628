"""Words hyphenated at a line break are one word again ("environ- ment" was two tokens no retriever
knows). The PDF is drawn with reportlab: a paragraph whose lines end in hyphens the way TeX sets
them, one of them in a code font."""
from collections import Counter

from ham.ingest import ingest_corpus
from ham.ingest.pdf_hyphens import join_lines, rejoin, vocabulary

LINES = [("Helvetica", "Set the R environ-"),
         ("Helvetica", "ment variables before the top-"),
         ("Helvetica", "level call; the x- and y-coordinates are pro-"),
         ("Helvetica", "grams of their own. The time-"),
         ("Helvetica", "consuming options are printed by the "), ]
CODE = [("Helvetica", "Run it with "), ("Courier", "--no-site-")]
AFTER_CODE = "file to skip the site file. A top-level environment holds programs."


def hyphenated_pdf(path):
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path))
    y = 700
    for font, text in LINES:
        c.setFont(font, 11)
        c.drawString(72, y, text)
        y -= 13
    line = c.beginText(72, y)
    for font, text in CODE:
        line.setFont(font, 11)
        line.textOut(text)
    c.drawText(line)
    c.setFont("Courier", 11)
    c.drawString(72, y - 13, AFTER_CODE.split()[0])
    c.setFont("Helvetica", 11)
    c.drawString(72 + c.stringWidth("file ", "Courier", 11), y - 13, " ".join(AFTER_CODE.split()[1:]))
    c.showPage()
    c.save()
    return path


def test_a_word_hyphenated_at_a_line_break_is_one_word_again(tmp_path):
    hyphenated_pdf(tmp_path / "hy.pdf")
    docs, report = ingest_corpus(tmp_path)
    text = " ".join(leaf.text for leaf in docs[0].leaves())
    assert "Set the R environment variables before the top-level call" in text
    assert "the x- and y-coordinates are programs of their own" in text     # a suspended hyphen stays
    assert "The time-consuming options" in text                              # two English words: a compound
    assert "--no-site- file" in text                                        # code keeps what it printed
    assert report.measures["hy.pdf"]["words hyphenated at a line break (rejoined)"] == 4


def test_the_document_decides_between_a_word_and_a_compound():
    vocab = vocabulary(["cd-hit clusters", "run cd-hit again", "see cdhit-guide", "the programming model"])
    assert rejoin("cd", "hit", vocab) == "cd-hit"           # the compound occurs more often
    assert rejoin("pro", "gramming", vocab) == "programming"
    assert rejoin("One", "and", vocab) == "One- and"        # "One- and two-sample tests"
    assert rejoin("unbounded", "ness", Counter()) == "unboundedness"   # a syllable is no word
    assert rejoin("down", "stream", Counter()) == "downstream"         # an English word
    assert rejoin("time", "consuming", Counter()) == "time-consuming"  # two English words


def test_only_a_hyphen_at_the_end_of_a_line_followed_by_a_lower_case_word_is_rejoined():
    vocab = Counter({"environment": 2})
    assert join_lines(["an environ-", "ment here"], vocab) == ("an environment here", 1)
    assert join_lines(["see Section 3-", "4 below"], vocab)[0] == "see Section 3- 4 below"
    assert join_lines(["the Non-", "Linear case"], vocab)[0] == "the Non- Linear case"
    assert join_lines(["an environ-", "ment"], vocab, [(False, True), (True, False)])[0] == "an environ- ment"
    assert vocabulary(["an environ-"])["environ"] == 0     # the cut piece is no word of the document


def test_a_line_latex_broke_to_fit_is_joined_to_its_continuation_without_its_marks():
    from ham.ingest.pdf_glyphs import decoded
    from ham.ingest.pdf_hyphens import unwrap

    # doxygen: "Post←" then cmmi's right hook, "(cid:45)": read together as ↩
    hook = decoded([{"text": "(cid:45)", "fontname": "MVJELD+CMMI10"}])
    assert hook == "↩" and decoded([{"text": "(cid:44)", "fontname": "HONWXK+CMMI10"}]) == "↪"
    assert join_lines([f"output in RTF (MS-Word), Post← {hook}", "Script, hyperlinked"], Counter()) \
        == ("output in RTF (MS-Word), PostScript, hyperlinked", 0)
    # Sphinx broke at a space: a visible space ends the line, ↪ opens the next
    assert join_lines(["but this frontend does not␣", "↪ →support input requests."], Counter())[0] \
        == "but this frontend does not support input requests."
    # a listing (dblatex) keeps its line breaks but the broken line is one again
    assert unwrap(["# apt install fai-doc qemu- ← ↩", "utils", "# fai-mk-configspace"]) \
        == ["# apt install fai-doc qemu-utils", "# fai-mk-configspace"]
    # an arrow that is no mark stays: "A → B" mid-line, "←" at a line's end without the hook
    assert join_lines(["press ←", "to go back"], Counter())[0] == "press ← to go back"
