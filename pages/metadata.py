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

from catalogue import display, entry_types, links
from catalogue.identifiers import doi_url, openalex_url
from catalogue.models import Author, Work
from config.sites import absolute_url
from exports.personal_names import is_corporate

# JSON-LD sits in a <script> element: "<", ">" and "&" are written as JSON escapes so a
# value holding "</script>" or "<!--" cannot end or change the element.
_SCRIPT_ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026"}


def ld_json(data: dict) -> SafeString:
    """``data`` as JSON safe to place inside <script type="application/ld+json">."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return mark_safe(text.translate(_SCRIPT_ESCAPES))  # noqa: S308 - escaped above


def _line(value: object, kind: str = "title") -> str:
    return display.clip_line(value, kind)


def _date(work: Work, sep: str) -> str:
    """The date as precisely as the record gives it: ``2023``, ``2023/03``, ``2023/03/04``."""
    published = work.published
    return published.joined(sep) if published else ""


def author_names(bylines) -> list[str]:
    return [name for name in (_line(b.name, "name") for b in bylines) if name]


# The tag that names a work's container, by its BibTeX entry type.
_CONTAINER_TAGS = {
    "article": "citation_journal_title",
    "inproceedings": "citation_conference_title",
    "incollection": "citation_inbook_title",
    "techreport": "citation_technical_report_institution",
}


def _venue_tags(work: Work) -> list[tuple[str, str]]:
    """The journal, conference or book the work is in: a repository is none of them."""
    venue, role = work.venue, entry_types.venue_role(work)
    tag = _CONTAINER_TAGS.get(entry_types.form(work).bibtex)
    tags = []
    if role == entry_types.CONTAINER and tag and not entry_types.is_preprint(work):
        tags.append((tag, _line(venue.name, "name")))
    if role in (entry_types.CONTAINER, entry_types.SERIES, entry_types.PLATFORM):
        tags.append(("citation_publisher", _line(venue.publisher, "name")))
    if tag == "citation_journal_title" and role == entry_types.CONTAINER:
        tags.append(("citation_issn", venue.issn_l))
    return tags


def highwire_tags(work: Work, bylines) -> list[tuple[str, str]]:
    """The ``citation_*`` meta tags (name, content) of a work, in Highwire's order."""
    tags = [("citation_title", _line(work.title))]
    tags += [("citation_author", name) for name in author_names(bylines)]
    tags += [("citation_publication_date", _date(work, "/")), *_venue_tags(work)]
    tags += [
        ("citation_volume", _line(work.volume, "name")),
        ("citation_issue", _line(work.issue, "name")),
        ("citation_firstpage", _line(work.first_page, "name")),
        ("citation_lastpage", _line(work.last_page, "name")),
        ("citation_doi", work.doi or ""),
        ("citation_arxiv_id", work.arxiv_id or ""),
        ("citation_pdf_url", links.web_url(work.pdf_url)),
        ("citation_abstract_html_url", absolute_url(work.get_absolute_url())),
        ("citation_language", _line(work.language, "name")),
    ]
    return [(name, content) for name, content in tags if content]


def _work_ids(work: Work) -> tuple[list[dict], list[str]]:
    ids = [
        ("DOI", work.doi, doi_url),
        ("arXiv", work.arxiv_id, "https://arxiv.org/abs/{}".format),
    ]
    values = [{"@type": "PropertyValue", "propertyID": k, "value": v} for k, v, _ in ids if v]
    same_as = [address(v) for _, v, address in ids if v]
    if openalex := openalex_url(work.openalex_id):  # a local id has no page there
        values.append(
            {"@type": "PropertyValue", "propertyID": "OpenAlex", "value": work.openalex_id}
        )
        same_as.append(openalex)
    return values, same_as


def _periodical(work: Work) -> dict | None:
    """The journal, nested in volume and issue as schema.org models them."""
    venue = work.venue
    journal = entry_types.form(work).bibtex == "article"
    if not journal or entry_types.venue_role(work) != entry_types.CONTAINER:
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


def work_head(page) -> dict:
    """What ``publications/_work_metadata.html`` shows of a work page (a
    ``selectors.WorkPage``): Highwire citation tags, OpenGraph article tags and a
    ScholarlyArticle."""
    work = page.work
    return {
        "SITE_NAME": settings.SITE_NAME,
        "work": work,
        "highwire": highwire_tags(work, page.bylines),
        "json_ld": work_json_ld(work, page.bylines, page.topics),
        "authors": author_names(page.bylines),
    }


def work_json_ld(work: Work, bylines, topics) -> dict:
    """A schema.org ScholarlyArticle for the work page."""
    url = absolute_url(work.get_absolute_url())
    identifiers, same_as = _work_ids(work)
    data: dict = {
        "@context": "https://schema.org",
        "@type": entry_types.form(work).schema,
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
    if pdf := links.web_url(work.pdf_url):
        data["encoding"] = {
            "@type": "MediaObject",
            "contentUrl": pdf,
            "encodingFormat": "application/pdf",
        }
    return {key: value for key, value in data.items() if value not in ("", None, [])}


def _byline_person(byline) -> dict:
    name = _line(byline.name, "name")
    person = {"@type": "Organization" if is_corporate(name) else "Person", "name": name}
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
