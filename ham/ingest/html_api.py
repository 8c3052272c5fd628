"""API descriptions in HTML manuals: Sphinx's domain objects (``dl.py.class``, ``dl.py.method``,
``dl.c.function``, ...; older Sphinx ``dl.class``), each a ``dt`` signature and a ``dd`` body.

Each object is a section of its own, named by the object (``class jinja2.Environment``,
``get_template()``), one level below the heading it sits under, nested objects (a class's methods)
one level further; its signature is its first text, its body follows, and the section closes
where the ``dl`` ends, so text after it belongs to the enclosing section again. Without this, a
parameter's description ("name – the template name") did not say which function it belongs to:
the signature was only a prefix of the object's first paragraph. A field list's items (its
parameters, "name (str) – the template name") are one text, a line each, after its term.
"""
from __future__ import annotations

from selectolax.lexbor import LexborNode

from ham.ingest.html_text import classes, flatten

_NAME = ".sig-name, .descname"
_PREFIX = ".sig-prename, .descclassname"


def signatures(node: LexborNode) -> list[LexborNode]:
    """The ``dt`` signatures of an API object's ``dl`` (several for overloads), else []."""
    if node.tag != "dl":
        return []
    dts = [c for c in node.iter() if c.tag == "dt"]
    if not dts or not all(dt.css_first(_NAME) is not None for dt in dts):
        return []
    return dts


def object_name(dt: LexborNode) -> str:
    """"class jinja2.Environment", "get_template()": the object's kind, module prefix and name,
    with "()" when the signature takes arguments; not its parameter list."""
    def text(selector: str) -> str:
        found = dt.css_first(selector)
        return "".join((found.text(deep=True) or "").split()) if found is not None else ""

    if "std" in classes(dt):
        # a command-line option (``.. option::``): its names and argument as written, in order
        # ("-a, --address <ip/hostname>"; the prename holds what follows the name here)
        return " ".join((dt.text(deep=True) or "").split())
    found = dt.css_first("em.property")
    kind = " ".join((found.text(deep=True) or "").split()) if found is not None else ""
    name = text(_PREFIX) + text(_NAME)
    if dt.css_first(".sig-paren") is not None or (dt.text(deep=True) or "").rstrip().endswith(")"):
        name += "()"
    return f"{kind} {name}".strip()


def is_field_list(ul: LexborNode) -> bool:
    """A ``ul`` that is the definition of a Sphinx field-list entry ("Parameters", "Raises")."""
    dd = ul.parent
    dl = dd.parent if dd is not None else None
    return dd is not None and dd.tag == "dd" and dl is not None and "field-list" in (dl.attributes.get("class") or "")


def box_title(node: LexborNode) -> LexborNode | None:
    """The title of a DocBook example or sidebar (``p.title``, ``div.title``), when it has text."""
    title = node.css_first("p.title, div.title")
    return title if title is not None and flatten(title) else None
