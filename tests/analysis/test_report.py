"""The HTML answer viewer: escaping of every document and model text, images linked by relative
paths that resolve from the page's folder, the grid page side by side."""
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

from ham_analysis.collect import collect
from ham.report.viewer import write_run_report
from ham_analysis.report import write_grid_report
from tests.analysis.grid_fixture import make_viewer_run


class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.scripts, self.imgs, self.text = 0, [], []

    def handle_starttag(self, tag, attrs):
        self.scripts += tag == "script"
        if tag == "img":
            self.imgs.append(dict(attrs))

    def handle_data(self, data):
        self.text.append(data)


def _parse(html):
    parser = _Collect()
    parser.feed(html)
    return parser


def test_every_text_is_escaped(tmp_path):
    html = write_run_report(make_viewer_run(tmp_path)).read_text()
    page = _parse(html)
    assert page.scripts == 1, "only the page's own image-check script"
    assert "&lt;script&gt;document.body.setAttribute(&#39;data-pwned&#39;,&#39;1&#39;)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=" in html and "<b>red</b>" not in html and "&lt;b&gt;red&lt;/b&gt;" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html, "reference answers are escaped too"
    assert 'alt="the &#34;red&#34; panel &amp; &lt;b&gt;bold&lt;/b&gt;"' in html
    assert "1. Panels &lt;i&gt;x&lt;/i&gt;" in html and "img9 &lt;not given&gt;" in html
    assert all(not attrs.get("onerror") for attrs in page.imgs)


def test_images_are_inline_where_placed_with_relative_paths_that_resolve(tmp_path):
    run_dir = make_viewer_run(tmp_path)
    html = write_run_report(run_dir).read_text()
    shown = [a for a in _parse(html).imgs if a.get("class") == "shown"]
    assert [a["data-ref"] for a in shown] == ["figures/red.png", "figures/red.png", "figures/blue.png"]
    for attrs in _parse(html).imgs:
        assert not attrs["src"].startswith(("/", "file:")), "relative, so the page works from disk"
        assert (run_dir / unquote(attrs["src"])).resolve().is_file()
    # the answer's image sits between its two text segments
    q1 = html.split('id="q-1"')[1].split("Reference answer")[0]
    assert q1.index("Open the red panel") < q1.index("figures/red.png") < q1.index("done")
    assert 'class="missing" data-ref="figures/gone.png"' in html, "an image not in the corpus is flagged"
    assert "Press the &lt;button&gt;" in html and "1. Panels › 1.1 Red" in html and "0.910" in html


def test_the_page_needs_no_dataset_and_says_when_images_moved(tmp_path):
    run_dir = make_viewer_run(tmp_path)
    (tmp_path / "questions.jsonl").unlink()          # the golds are in the rows: nothing reads it
    html = write_run_report(run_dir).read_text()
    assert "Open the panel." in html and "Open the red panel" in html
    (tmp_path / "corpus").rename(tmp_path / "moved")
    html = write_run_report(run_dir).read_text()
    assert "image(s) not found under" in html and "figures/red.png" in html and "Open the red panel" in html


def test_grid_page_shows_variants_side_by_side(tmp_path):
    make_viewer_run(tmp_path, "si")
    make_viewer_run(tmp_path, "li")
    out = write_grid_report(collect([tmp_path / "runs"]), tmp_path / "analysis" / "report.html")
    html = out.read_text()
    q1 = html.split("q1: How do I open")[1].split("q2: Where")[0]
    assert re.findall(r"<h3>(li|si)</h3>", q1) == ["li", "si"]
    assert q1.count("Open the red panel.") == 2
    for attrs in _parse(html).imgs:
        assert (out.parent / unquote(attrs["src"])).resolve().is_file()
    assert Path(out).parent.name == "analysis"
