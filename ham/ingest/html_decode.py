"""From an HTML file's bytes to the text the page reader parses: the charset it declares (UTF-8
when none; a BOM first), and an XHTML page's empty elements closed as XML reads them."""
from __future__ import annotations

import codecs
import re
from email.message import Message
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from ham.ingest.report import IngestReport, read_bytes


def declared_charset(data: bytes) -> str | None:
    """The charset a page declares in ``<meta charset>`` or ``<meta http-equiv content=...>``."""
    head = LexborHTMLParser(data[:16384].decode("ascii", "replace"))
    for meta in head.css("meta"):
        attrs = {k.lower(): (v or "") for k, v in meta.attributes.items()}
        if attrs.get("charset"):
            return attrs["charset"].strip()
        if attrs.get("http-equiv", "").lower() == "content-type" and attrs.get("content"):
            msg = Message()
            msg["content-type"] = attrs["content"]
            if msg.get_content_charset():
                return msg.get_content_charset()
    return None


def decode_page(path: Path, report: IngestReport) -> str | None:
    """Bytes to text by the declared charset (UTF-8 when none); report and return None on failure."""
    data = read_bytes(path, report)
    if data is None:
        return None
    if data.startswith(codecs.BOM_UTF8):
        charset = "utf-8-sig"
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        charset = "utf-16"
    else:
        charset = declared_charset(data) or "utf-8"
    try:
        codec = codecs.lookup(charset).name
    except LookupError:
        report.add(path, f"unknown charset {charset!r} declared", "document")
        return None
    if codec == "utf-8":
        codec = "utf-8-sig"
    try:
        return data.decode(codec)
    except UnicodeDecodeError as exc:
        report.add(path, f"not valid {charset} (byte {exc.start}: {exc.reason})", "document")
        return None


_XHTML = re.compile(r"^\s*(?:<\?xml\b|<!DOCTYPE\s+html\s+PUBLIC\s+\"-//W3C//DTD XHTML)|"
                    r"<html\b[^>]*\bxmlns=[\"']http://www\.w3\.org/1999/xhtml", re.I)
# an element written empty in XML syntax, ``<a id="x"/>``, that HTML has no void element for
_SELF_CLOSED = re.compile(r"<(?!(?:area|base|br|col|embed|hr|img|input|link|meta|param|source|track|wbr)\b)"
                          r"([A-Za-z][\w:-]*)(\s[^<>]*?)?\s*/>")


def xhtml_as_html(text: str) -> str:
    """An XHTML page (DocBook XSL's, saved as .html) with its empty elements closed, as XML reads
    them: an HTML parser takes ``<a id="x"/>`` for an open ``<a>``, and the caption, paragraph or
    table after it would sit inside that anchor (169 of the Debian Reference's 170 table captions
    lost their table so). Other pages are returned as they are."""
    if not _XHTML.search(text[:4096]):
        return text
    return _SELF_CLOSED.sub(lambda m: f"<{m.group(1)}{m.group(2) or ''}></{m.group(1)}>", text)
