"""Web addresses: the one rule for which imported URLs are kept, linked and exported.

Imported records give addresses for works, PDFs, code, institutions and people.
Only http and https are ever kept or linked: ``javascript:``, ``data:``,
``vbscript:`` and every other scheme run or show something instead of leading
somewhere. The importers keep an address through ``kept_url`` (noting why one was
dropped); pages, feeds and exports show one only through ``web_url``.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from catalogue.text import _UNWANTED, URL_MAX

NOT_WEB = "not an http(s) address"
_BREAKS = re.compile(r"[^\S ]")  # white space other than a plain space (tabs, breaks, NBSP...)


def http_url(value: object) -> tuple[str, str]:
    """``(url, "")`` for an http(s) address with a host, else ``("", why it was dropped)``.

    Only http and https are ever linked: ``javascript:``, ``data:``, ``vbscript:``
    and every other scheme run or show something instead of leading somewhere.
    Controls and white space inside an address can hide a scheme from a check
    like this one while a browser still reads it, so an address carrying them is
    dropped, not repaired. ``("", "")``: there was no address.
    """
    if value is None or value == "":
        return "", ""
    if not isinstance(value, str):
        return "", f"not text ({type(value).__name__})"
    text = value.strip()
    if not text:
        return "", ""
    if _UNWANTED.search(text) or _BREAKS.search(text):
        return "", f"{NOT_WEB} (it holds control characters)"
    text = text.replace(" ", "%20")  # a space a server wrote into a file name
    if len(text) > URL_MAX:
        return "", f"longer than {URL_MAX} characters"
    try:
        parts = urlsplit(text)
        host = parts.hostname
    except ValueError:
        return "", f"{NOT_WEB} (unreadable)"
    if parts.scheme.lower() not in ("http", "https") or not host:
        return "", NOT_WEB
    return text, ""


def kept_url(dropped: dict[str, str], name: str, value: object) -> str:
    """An http(s) address, or "" with the reason noted in ``dropped`` under ``name``.

    The mappers keep ``dropped`` in the record's provenance, so a page can say which
    link was not kept and why.
    """
    url, reason = http_url(value)
    if reason:
        dropped[name] = reason
    return url


def web_url(value: object) -> str:
    """``value`` if it is an http(s) address with a host, else "": what a page may link."""
    return http_url(value)[0]
