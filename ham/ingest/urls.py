"""URLs as documents write them, parsed without letting one malformed link stop a corpus.

``urllib.parse.urlparse`` raises ``ValueError`` for some hrefs a real manual holds: a bracketed
placeholder host, ``http://HOST_NAME_OR_IP_ADDRESS[:PORT_NUMBER]/`` in Groonga's tutorial, is read
as an IPv6 literal since Python 3.11.4, and ingest of all 305 pages stopped there. Every reader
parses links with ``parse_url``: such a link is read as a remote one (not followed), and an image
with such a source is reported as not a valid URL.
"""
from __future__ import annotations

from urllib.parse import ParseResult, urlparse

MALFORMED = "malformed"      # the scheme ``parse_url`` gives an href it cannot parse
_MALFORMED = ParseResult(scheme=MALFORMED, netloc="", path="", params="", query="", fragment="")


def parse_url(href: str) -> ParseResult:
    """``urlparse(href)``, or for an href it cannot parse a result with scheme ``malformed`` and
    no path: a link nothing in the corpus answers to."""
    try:
        return urlparse(href)
    except ValueError:
        return _MALFORMED
