"""Text of HTML nodes (selectolax lexbor) shared by the page reader and the content walker: inline
markup flattened, tables as ``a | b`` rows, and the tag and class sets that say what a node is."""
from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ham.ingest.urls import parse_url
from ham.text import clean_text

TOC_CHROME = ("div.list-of-figures, div.list-of-tables, div.list-of-examples, div.list-of-equations, "
              "div.list-of-procedures, div.contents.topic, div.topic.contents, a.headerlink")
PAGE_TOC_CLASSES = {"toc", "toc2", "toctree-wrapper"}  # skipped by the walker, which notes where they sat
ALWAYS_SKIP = {"script", "style", "noscript", "template", "head", "iframe", "object", "svg", "map"}
ADMONITIONS = ("note", "tip", "warning", "caution", "important", "attention", "danger", "hint",
               "seealso", "admonition")
ICON_NAMES = {"prev", "next", "up", "home", "blank"} | set(ADMONITIONS)
BLOCK_TAGS = {"html", "body", "p", "div", "section", "article", "main", "aside", "blockquote", "ul",
               "ol", "li", "dl", "dt", "dd", "table", "thead", "tbody", "tfoot", "tr", "td", "th",
               "figure", "figcaption", "pre", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "center",
               "details", "summary", "caption", "address", "fieldset", "header", "hgroup", "title"}
CREDIT_CLASSES = {"corpauthor", "author", "authorgroup", "editor", "othercredit", "copyright", "pubdate",
                   "releaseinfo", "legalnotice", "revhistory"}
IMAGE_MARK = re.compile(r"\[image(?:: [^\]]*)?\]")
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}


def normalise(text: str) -> str:
    return " ".join(clean_text(text).split())


def flatten(node: LexborNode, image_text=None) -> str:
    """A node's text with inline markup flattened; block boundaries become spaces. ``image_text``
    (img node -> str) gives what an image stands for in the text (nothing by default)."""
    return normalise(raw_text(node, image_text))


def raw_text(node: LexborNode, image_text=None) -> str:
    """``flatten`` before whitespace is normalised: the text keeps the spaces at its edges, so
    inline pieces joined with "" read as the page shows them ("<code>dpkg</code>'s")."""
    if node.tag == "-text":
        return node.text_content or ""
    parts: list[str] = []
    for n in node.traverse(include_text=True):
        if n.tag == "-text":
            parts.append(n.text_content or "")
        elif n.tag in BLOCK_TAGS or n.tag == "br":
            parts.append(" ")
        elif n.tag == "img" and image_text is not None:
            parts.append(" " + image_text(n) + " ")
    return "".join(parts)


def classes(node: LexborNode) -> set[str]:
    return set((node.attributes.get("class") or "").split())


def table_text(node: LexborNode, image_text=None) -> str:
    """Rows of a table as ``a | b | c`` lines (``image_text``: as in ``flatten``)."""
    rows = []
    for tr in node.css("tr"):
        cells = [flatten(c, image_text) for c in tr.iter() if c.tag in ("td", "th")]
        if any(cells):
            rows.append(" | ".join(cells))
    return "\n".join(rows)


def table_html_text(fragment: str) -> str:
    """Flatten an HTML table fragment (e.g. MinerU's ``table_body``); plain text if no table."""
    tree = LexborHTMLParser(fragment)
    table = tree.css_first("table")
    if table is not None:
        return table_text(table)
    return flatten(tree.body) if tree.body is not None else ""


def remove_chrome(tree: LexborHTMLParser, selectors: str) -> None:
    for node in tree.css(selectors):
        node.decompose()


def label_tab_panels(tree: LexborHTMLParser) -> int:
    """Each tab panel's label (``[role=tabpanel][aria-labelledby]``: sphinx-tabs' "Bash", "Fish",
    "CMD", "Powershell") put in front of the panel's first paragraph or code display, as "Bash:",
    before the tab buttons go as chrome: the four panels of one command otherwise read as four
    units that say nothing of which shell each is for. Returns how many panels were labelled."""
    labelled = 0
    for panel in tree.css("[role=tabpanel][aria-labelledby]"):
        tab = tree.css_first(f'[id="{panel.attributes.get("aria-labelledby")}"]')
        label = normalise(tab.text()) if tab is not None else ""
        first = panel.css_first("pre, p")
        if not label or first is None:
            continue
        text = f"{label}:\n" if first.tag == "pre" else f"{label}: "
        if first.child is not None:
            first.child.insert_before(text)
        else:
            first.insert_child(text)
        labelled += 1
    return labelled


_TOP = re.compile(r"^\W*(back to (the )?top|top of (the )?page|to top|top)\W*$", re.I)


def _only_link(node: LexborNode) -> LexborNode | None:
    """The one link that is all of ``node``'s text, else None."""
    links = node.css("a[href]")
    if len(links) != 1 or node.css_first("img") is not None:
        return None
    text = flatten(links[0])
    return links[0] if text and flatten(node) == text else None


def is_anchor_list(node: LexborNode) -> bool:
    """An in-page table of contents: a list of two or more links, all to anchors of the same page
    ("#general", "#interface"), nested or not, and no text but theirs; a list of steps in plain
    text is not one."""
    links = node.css("a[href]")
    if len([li for li in node.iter() if li.tag == "li"]) < 2 or len(links) < 2 or node.css_first("img") is not None:
        return False
    if not all((a.attributes.get("href") or "").startswith("#") for a in links):
        return False
    words = normalise(node.text(separator=" ")).split()
    return words == normalise(" ".join(a.text(separator=" ") for a in links)).split()


def is_back_to_top(node: LexborNode) -> bool:
    """A line that is only a "Back to Top" link to the page's top ("#top", "#")."""
    link = _only_link(node)
    if link is None:
        return False
    href = parse_url(link.attributes.get("href") or "")
    return not href.path and _TOP.match(flatten(link)) is not None


_FORM_CONTENT = "h1, h2, h3, h4, h5, h6, p, pre, table, ul, ol, dl, img, figure, blockquote"
_CONTROLS = {"button", "select"}
# where a control is part of what the page says: "Press <button>OK</button> to confirm", a table
# of a dialog's buttons; one alone in a div or a list item (a theme's search button, mdBook's
# colour-scheme menu) or one with a widget role (a menu item, a tab) is chrome
_TEXT_HOLDERS = {"p", "td", "th", "dd", "dt", "h1", "h2", "h3", "h4", "h5", "h6", "caption",
                 "figcaption", "blockquote", "pre", "summary", "address"}
_WIDGET_ROLES = {"tab", "menuitem", "menuitemradio", "menuitemcheckbox", "option", "switch"}


def _words_outside_controls(node: LexborNode) -> bool:
    for text in node.traverse(include_text=True):
        if text.tag == "-text" and (text.text_content or "").strip():
            up = text.parent
            while up is not None and up is not node and up.tag not in _CONTROLS:
                up = up.parent
            if up is None or up is node:
                return True
    return False


def _inside_control(node: LexborNode) -> bool:
    up = node.parent
    while up is not None and up.tag not in _CONTROLS:
        up = up.parent
    return up is not None


def _in_text(control: LexborNode) -> bool:
    if (control.attributes.get("role") or "").strip().lower() in _WIDGET_ROLES:
        return False
    holder = control.parent
    while holder is not None and holder.tag not in BLOCK_TAGS:
        holder = holder.parent
    return holder is not None and (holder.tag in _TEXT_HOLDERS or _words_outside_controls(holder))


def unwrap_forms(tree: LexborHTMLParser) -> dict[str, int]:
    """Forms and their controls, before the content is read (what went that held text, for the
    report). A form holding content (headings, paragraphs, tables, lists: an ASP.NET page's body
    sits in ``<form id="form1">``) is unwrapped; one without (a search box) goes. A button's label
    and a select's shown option stay in the text they sit in ("Press OK to confirm"); a control
    alone in a div or list item, or with a widget role, is chrome, and so is every ``input`` (no
    text of its own)."""
    dropped = {"form without content (search box)": 0, "button or select outside text": 0}
    for form in tree.css("form"):
        if form.css_first(_FORM_CONTENT) is not None:
            form.unwrap()
        else:
            dropped["form without content (search box)"] += bool(normalise(form.text()))
            form.decompose()
    for control in tree.css("button, select"):
        if _inside_control(control):   # its outer control decides for both
            continue
        if not _in_text(control):
            # a tab's label was put in front of its panel (label_tab_panels): not lost
            dropped["button or select outside text"] += bool(normalise(control.text())) and \
                control.attributes.get("role") != "tab"
            control.decompose()
        elif control.tag == "select":
            shown = control.css_first("option[selected]") or control.css_first("option")
            control.replace_with(f" {flatten(shown)} " if shown is not None else " ")
    remove_chrome(tree, "input")
    return {what: n for what, n in dropped.items() if n}
