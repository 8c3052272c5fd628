"""Bad input is reported (naming the file and the problem) and the rest of the corpus still ingests."""
import os
from pathlib import Path

import PIL.Image
import pytest
from PIL import Image

from ham.ingest import ingest_corpus

GOOD = "# Good document\n\nThis one is fine.\n\n![ok](img/ok.png)\n"


@pytest.fixture
def corpus(tmp_path):
    """A corpus root holding one good Markdown document and its image."""
    root = tmp_path / "corpus"
    (root / "img").mkdir(parents=True)
    Image.new("RGB", (8, 8), "green").save(root / "img" / "ok.png")
    (root / "good.md").write_text(GOOD)
    return root


def ingest(root):
    docs, report = ingest_corpus(root)
    good = next(d for d in docs if d.source == "good.md")
    image = next(n for n in good.leaves() if n.kind == "image")
    assert image.image_path == "img/ok.png"  # the rest of the corpus still ingests
    return {d.source: d for d in docs}, [str(p) for p in report.problems]


def only_image(doc):
    return next(n for n in doc.leaves() if n.kind == "image")


def test_missing_image_file(corpus):
    (corpus / "missing.md").write_text("# M\n\n![gone](img/missing.png)\n")
    docs, problems = ingest(corpus)
    assert "missing.md: image 'img/missing.png': image file not found (image skipped)" in problems
    assert only_image(docs["missing.md"]).image_path is None  # the unit stays, marked unusable


def test_zero_byte_image(corpus):
    (corpus / "img" / "empty.png").write_bytes(b"")
    (corpus / "zero.md").write_text("# Z\n\n![empty](img/empty.png)\n")
    docs, problems = ingest(corpus)
    assert "zero.md: image 'img/empty.png': image file is empty (0 bytes) (image skipped)" in problems
    assert only_image(docs["zero.md"]).image_path is None


def test_corrupt_image(corpus):
    (corpus / "img" / "noise.png").write_bytes(os.urandom(512))
    (corpus / "corrupt.md").write_text("# C\n\n![noise](img/noise.png)\n")
    docs, problems = ingest(corpus)
    assert any(p.startswith("corrupt.md: image 'img/noise.png': image file is corrupt or not an image")
               for p in problems)
    assert only_image(docs["corrupt.md"]).image_path is None


def test_non_utf8_markdown(corpus):
    (corpus / "latin1.md").write_bytes("# Café\n\nCrème brûlée\n".encode("latin-1"))
    docs, problems = ingest(corpus)
    assert "latin1.md" not in docs
    assert any(p.startswith("latin1.md: not valid UTF-8") and p.endswith("(document skipped)")
               for p in problems)


def test_empty_document(corpus):
    (corpus / "empty.md").write_text("\n\n   \n")
    docs, problems = ingest(corpus)
    assert "empty.md" not in docs
    assert "empty.md: no content (empty document) (document skipped)" in problems


def test_broken_html_still_parses_what_is_there(corpus):
    (corpus / "broken.html").write_text(
        '<html><body><h1>Broken page<p>First para <b>bold text<div>Second <img src="img/ok.png" alt="ok">'
        ' tail<div><img src="img/ok.png" alt="ok"></div><table><tr><td>a<td>b</table>'
        "<p>To finish:<ol><li>Open it<li>Close it <p>unclosed")
    docs, problems = ingest(corpus)
    doc = docs["broken.html"]
    assert problems == []
    leaves = [(n.kind, n.image or n.text) for n in doc.leaves()]
    assert ("image", "img/ok.png") in leaves
    assert ("text", "Second [ok] tail") in leaves  # the image inside the sentence stays in it
    assert any(kind == "text" and "First para bold text" in text for kind, text in leaves)
    assert ("table", "a | b") in leaves
    # the unclosed h1 does not swallow the page: it is the title, and the paragraphs follow it
    assert doc.title == "Broken page" and doc.root.children[0].text == "First para bold text"
    assert any(n.kind == "step" for n in doc.root.walk())


def test_markup_without_text_is_reported_as_empty(corpus):
    (corpus / "garbage.html").write_text("</div></p><!-- nothing --><span> </span><br><hr><div><table></tr>")
    docs, problems = ingest(corpus)
    assert "garbage.html" not in docs
    assert "garbage.html: no content found (no text and no image) (document skipped)" in problems


def test_image_outside_the_corpus_root_is_never_opened(corpus, tmp_path, monkeypatch):
    outside = tmp_path / "outside"
    outside.mkdir()
    Image.new("RGB", (8, 8), "red").save(outside / "secret.png")
    (corpus / "docs").mkdir()
    (corpus / "docs" / "escape.md").write_text(
        "# E\n\n![secret](../../outside/secret.png)\n\n![passwd](../../etc/passwd.png)\n")
    (corpus / "escape.html").write_text('<p>x <img src="../outside/secret.png"></p>')
    opened = []
    real_open = PIL.Image.open

    def spy(fp, *args, **kwargs):
        opened.append(Path(fp).resolve() if isinstance(fp, (str, os.PathLike)) else fp)
        return real_open(fp, *args, **kwargs)

    monkeypatch.setattr(PIL.Image, "open", spy)
    docs, problems = ingest(corpus)
    assert (outside / "secret.png").resolve() not in opened
    assert "docs/escape.md: image '../../outside/secret.png' points outside the corpus root (not read) " \
           "(image skipped)" in problems
    assert "docs/escape.md: image '../../etc/passwd.png' points outside the corpus root (not read) " \
           "(image skipped)" in problems
    assert "escape.html: image '../outside/secret.png' points outside the corpus root (not read) " \
           "(image skipped)" in problems
    assert all(n.image_path is None for n in docs["docs/escape.md"].leaves() if n.kind == "image")


def test_corrupt_mineru_json(corpus):
    (corpus / "paper").mkdir()
    (corpus / "paper" / "paper_content_list.json").write_text('[{"type": "text", "text": "cut off')
    (corpus / "paper" / "paper.md").write_text("# Paper\n\ntext\n")
    docs, problems = ingest(corpus)
    assert "paper/paper_content_list.json" not in docs
    assert any(p.startswith("paper/paper_content_list.json: corrupt JSON (line 1") and
               p.endswith("(document skipped)") for p in problems)
    assert "paper/paper.md" not in docs  # claimed with its content list, not parsed twice


def test_the_same_document_in_two_formats_is_read_twice_under_distinct_ids(tmp_path):
    # Debian's bash-doc ships bash.html beside bash.pdf: both are read, the later format under its
    # file name; only when that is taken too is the document skipped, as a problem naming the file
    from ham.ingest import ingest_corpus

    (tmp_path / "guide.md").write_text("# Guide\n\nMarkdown body.\n\n![A figure](fig.png)\n\nFigure 1: the figure.\n")
    (tmp_path / "guide.html").write_text("<html><body><h1>Guide</h1><p>HTML body.</p></body></html>")
    (tmp_path / "other.md").write_text("# Other\n\nStill indexed.\n")
    docs, report = ingest_corpus(tmp_path)
    by_id = {d.id: d for d in docs}
    assert sorted(by_id) == ["guide", "guide.md", "other"] and by_id["guide.md"].source == "guide.md"
    nodes = [n for d in docs for n in d.root.walk()]
    assert len({n.id for n in nodes}) == len(nodes)                  # node ids follow their document's
    assert all(n.id.startswith("guide.md:") for n in by_id["guide.md"].root.walk())
    captions = [n.caption_of for n in by_id["guide.md"].root.walk() if n.caption_of]
    assert captions and all(c.startswith("guide.md:") for c in captions)     # the figure-caption link too
    assert report.measures["guide.md"]["document id taken by another file (read under its file name)"] == 1
    assert not report.problems or all("already taken" not in p.problem for p in report.problems)

    (tmp_path / "guide.md.html").write_text("<html><body><h1>Guide too</h1><p>Body.</p></body></html>")
    docs, report = ingest_corpus(tmp_path)
    assert sorted(d.id for d in docs) == ["guide", "guide.md", "other"]
    problem = next(p for p in report.problems if "already taken" in p.problem)
    assert problem.file == "guide.md" and problem.skipped == "document"

def test_a_link_urllib_cannot_parse_stops_nothing(corpus):
    # Groonga's tutorial: a bracketed placeholder host, which urlparse rejects as a bad IPv6 literal
    (corpus / "network.html").write_text(
        '<html><body><h1>Network</h1><p>Open <a href="http://HOST_NAME_OR_IP_ADDRESS[:PORT_NUMBER]/">the URL</a>.</p>'
        '<p><img src="http://[bad/x.png" alt="x"></p></body></html>')
    (corpus / "other.html").write_text("<html><body><h1>Other</h1><p>More.</p></body></html>")
    docs, problems = ingest(corpus)
    assert sorted(docs) == ["good.md", "network.html", "other.html"]
    assert "Open the URL." in [n.text for n in docs["network.html"].leaves()]
    assert problems == ["network.html: image 'http://[bad/x.png' is not a valid URL (image skipped)"]


def test_a_page_a_library_refuses_is_reported_and_the_other_pages_are_read(corpus, monkeypatch):
    # whatever odd input makes a parser raise ValueError (a URL urllib rejects was one) costs that page only
    import ham.ingest.html as html_module
    real = html_module.read_page

    def refusing(path, root, report):
        if path.name == "odd.html":
            raise ValueError("':PORT' does not appear to be an IPv4 or IPv6 address")
        return real(path, root, report)
    monkeypatch.setattr(html_module, "read_page", refusing)
    (corpus / "odd.html").write_text("<html><body><h1>Odd</h1><p>x</p></body></html>")
    (corpus / "fine.html").write_text("<html><body><h1>Fine</h1><p>Text.</p></body></html>")
    docs, problems = ingest(corpus)
    assert sorted(docs) == ["fine.html", "good.md"]
    assert problems == ["odd.html: cannot be read (ValueError: ':PORT' does not appear "
                        "to be an IPv4 or IPv6 address) (document skipped)"]
