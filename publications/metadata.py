"""Machine-readable metadata for pages: Highwire tags, schema.org JSON-LD, absolute URLs.

Reference managers (Zotero's Embedded Metadata translator) read the Highwire
``citation_*`` tags; search engines read JSON-LD and OpenGraph. Every value is
plain text taken from imported records, so nothing here trusts them: markup is
stripped, addresses are kept only when they are http(s), and JSON-LD is
serialised so no value can close its ``<script>`` element.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.utils.safestring import SafeString, mark_safe

from publications import display
from publications.identifiers import openalex_url
from publications.models import Author, Work

# JSON-LD sits in a <script> element: "<", ">" and "&" are written as JSON escapes so a
# value holding "</script>" or "<!--" cannot end or change the element.
_SCRIPT_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}


def absolute_url(path: str) -> str:
    """``path`` on the site's public address (SITE_URL)."""
    return settings.SITE_URL.rstrip("/") + path


def ld_json(data: dict) -> SafeString:
    """``data`` as JSON safe to place inside <script type="application/ld+json">."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return mark_safe(text.translate(_SCRIPT_ESCAPES))  # noqa: S308 - escaped above


def _line(value: object, kind: str = "title") -> str:
    return display.clip_line(value, kind)


def _date(work: Work, sep: str) -> str:
    if work.publication_date:
        return work.publication_date.strftime(f"%Y{sep}%m{sep}%d")
    return str(work.publication_year) if work.publication_year else ""


def author_names(bylines) -> list[str]:
    return [name for name in (_line(b.name, "name") for b in bylines) if name]


def highwire_tags(work: Work, bylines) -> list[tuple[str, str]]:
    """The ``citation_*`` meta tags (name, content) of a work, in Highwire's order."""
    venue = work.venue
    tags = [("citation_title", _line(work.title))]
    tags += [("citation_author", name) for name in author_names(bylines)]
    tags += [
        ("citation_publication_date", _date(work, "/")),
        ("citation_journal_title", _line(venue.name, "name") if venue else ""),
        ("citation_publisher", _line(venue.publisher, "name") if venue else ""),
        ("citation_issn", venue.issn_l if venue else ""),
        ("citation_volume", _line(work.volume, "name")),
        ("citation_issue", _line(work.issue, "name")),
        ("citation_firstpage", _line(work.first_page, "name")),
        ("citation_lastpage", _line(work.last_page, "name")),
        ("citation_doi", work.doi or ""),
        ("citation_arxiv_id", work.arxiv_id or ""),
        ("citation_pdf_url", display.web_url(work.pdf_url)),
        ("citation_abstract_html_url", absolute_url(work.get_absolute_url())),
        ("citation_language", _line(work.language, "name")),
    ]
    return [(name, content) for name, content in tags if content]


def _work_ids(work: Work) -> tuple[list[dict], list[str]]:
    ids = [
        ("DOI", work.doi, "https://doi.org/{}"),
        ("arXiv", work.arxiv_id, "https://arxiv.org/abs/{}"),
    ]
    values = [{"@type": "PropertyValue", "propertyID": k, "value": v} for k, v, _ in ids if v]
    same_as = [pattern.format(v) for _, v, pattern in ids if v]
    if openalex := openalex_url(work.openalex_id):  # a local id has no page there
        values.append(
            {"@type": "PropertyValue", "propertyID": "OpenAlex", "value": work.openalex_id}
        )
        same_as.append(openalex)
    return values, same_as


def _periodical(work: Work) -> dict | None:
    """The venue, nested in volume and issue as schema.org models them."""
    venue = work.venue
    if venue is None:
        return None
    part: dict = {"@type": "Periodical", "name": _line(venue.name, "name")}
    if venue.issn_l:
        part["issn"] = venue.issn_l
    if work.volume:
        part = {
            "@type": "PublicationVolume",
            "volumeNumber": _line(work.volume, "name"),
            "isPartOf": part,
        }
    if work.issue:
        part = {
            "@type": "PublicationIssue",
            "issueNumber": _line(work.issue, "name"),
            "isPartOf": part,
        }
    return part


def work_json_ld(work: Work, bylines, topics) -> dict:
    """A schema.org ScholarlyArticle for the work page."""
    url = absolute_url(work.get_absolute_url())
    identifiers, same_as = _work_ids(work)
    data: dict = {
        "@context": "https://schema.org",
        "@type": "ScholarlyArticle",
        "@id": url,
        "url": url,
        "name": _line(work.title),
        "headline": _line(work.title, 110),
        "author": [_byline_person(b) for b in bylines if _line(b.name, "name")],
        "datePublished": _date(work, "-"),
        "abstract": _line(work.abstract, "abstract"),
        "identifier": identifiers,
        "sameAs": same_as,
        "keywords": [_line(topic.name, "name") for topic in topics],
        "isPartOf": _periodical(work),
        "pageStart": _line(work.first_page, "name"),
        "pageEnd": _line(work.last_page, "name"),
        "isAccessibleForFree": work.is_open_access,
        "inLanguage": _line(work.language, "name"),
    }
    if pdf := display.web_url(work.pdf_url):
        data["encoding"] = {
            "@type": "MediaObject",
            "contentUrl": pdf,
            "encodingFormat": "application/pdf",
        }
    return {key: value for key, value in data.items() if value not in ("", None, [])}


def _byline_person(byline) -> dict:
    person = {"@type": "Person", "name": _line(byline.name, "name")}
    if byline.author is not None:
        person["url"] = absolute_url(byline.author.get_absolute_url())
        if byline.author.orcid:
            person["sameAs"] = f"https://orcid.org/{byline.author.orcid}"
    return person


def person_json_ld(author: Author) -> dict:
    """A schema.org Person for the researcher page, the same as their ORCID and OpenAlex records."""
    url = absolute_url(author.get_absolute_url())
    same_as = []
    if author.orcid:
        same_as.append(f"https://orcid.org/{author.orcid}")
    if openalex := openalex_url(author.openalex_id):
        same_as.append(openalex)
    data: dict = {
        "@context": "https://schema.org",
        "@type": "Person",
        "@id": url,
        "url": url,
        "name": _line(author.display_name, "name"),
        "sameAs": same_as,
    }
    institution = author.last_known_institution
    if institution is not None:
        data["affiliation"] = {"@type": "Organization", "name": _line(institution.name, "name")}
    return {key: value for key, value in data.items() if value not in ("", None, [])}
