"""What the site shows of the real recordings: work pages, researcher pages, the read API.

``test_real_records_field_by_field`` reads every record's work page and API answers
once through these, then compares them with ``real_records``. Pages are parsed
with lxml; a value a page does not show is None.
"""

from __future__ import annotations

import json
import operator
import re

from django.core.cache import cache
from django.test import Client
from lxml import html as lxml_html

from tests.pages import real_records

EMPTY = (None, "", [], {}, set())
WORK_PATH = re.compile(r"/works/(\d+)-")


def _get(client: Client, url: str, **query):
    cache.clear()  # the API's throttle counts in the cache; these are hundreds of requests
    return client.get(url, query)


def _api(client: Client, url: str, **query) -> dict:
    response = _get(client, url, **query)
    assert response.status_code == 200, (url, response.status_code)
    return response.json()


def _pages(client: Client, url: str) -> list[dict]:
    """Every row of a paged API list."""
    rows, page = [], 1
    while True:
        answer = _api(client, url, page=page, page_size=100)
        rows += answer["results"]
        if not answer.get("next"):
            return rows
        page += 1


# What a work page shows -------------------------------------------------------------------


def _words(element) -> str | None:
    """An element's text without its "from <source>" notes, white space as one space."""
    if element is None:
        return None
    element = lxml_html.fromstring(lxml_html.tostring(element, encoding="unicode"))
    for note in element.xpath('.//*[contains(concat(" ", @class, " "), " from ")]'):
        note.drop_tree()
    return " ".join(element.text_content().split()) or None


def _first(tree, path: str):
    found = tree.xpath(path)
    return found[0] if found else None


def _fact(tree, label: str):
    found = tree.xpath(f'//aside//dl/div[dt = "{label}"]/dd')
    return found[0] if found else None


def _byline(tree) -> list[dict]:
    affiliations = [_words(li) for li in tree.xpath('//ol[@class="affiliations"]/li')]
    people = []
    for li in tree.xpath('//ol[@data-testid="authors"]/li[not(@class="byline-gap")]'):
        marks = li.xpath('string(.//sup[@class="aff-marks"]/text()[last()])')
        places = [affiliations[int(n) - 1] for n in re.findall(r"\d+", marks)]
        people.append(
            {
                "name": " ".join(li[0].text_content().split()),
                "places": places,
                "corresponding": bool(li.xpath('.//*[@class="corresponding"]')),
            }
        )
    return people


def _page(body: str) -> dict:
    tree = lxml_html.fromstring(body)
    meta = {m.get("name"): m.get("content") for m in tree.xpath("//meta[@name]")}
    (ld,) = tree.xpath('//script[@type="application/ld+json"]/text()')
    identifiers = {
        dt.text_content(): _words(dt.getnext())
        for dt in tree.xpath('//dl[@data-testid="identifiers"]/div/dt')
    }
    venue = tree.xpath(
        '//aside//dl/div[dt = "Journal" or dt = "Conference" or dt = "Repository" or dt = "Venue"]/dd/a[1]'
    )
    access = _fact(tree, "Access")
    return {
        "tree": tree,
        "meta": meta,
        "ld": json.loads(ld),
        "title": _words(tree.xpath('//h1[@id="work-title"]')[0]),
        "identifiers": identifiers,
        "date": tree.xpath('string(//p[@class="work-meta"]/time/@datetime)') or None,
        "type": _words(_fact(tree, "Type")),
        "venue": _words(venue[0]) if venue else None,
        "journal_ref": _words(_fact(tree, "Journal ref")),
        "citations": tree.xpath('//dd[@data-testid="citations"]')[0],
        "access": _words(access),
        "oa_url": (access.xpath('a[. = "Best open copy"]/@href') or [None])[0]
        if access is not None
        else None,
        "language": _words(_fact(tree, "Language")),
        "byline": _byline(tree),
        "topics": [  # (kind, topic id, name) of each chip, in order
            (
                li.get("title"),
                int(re.search(r"/topics/(\d+)", li[0].get("href")).group(1)),
                _words(li[0]),
            )
            for li in tree.xpath('//ul[@class="chip-list"]/li')
        ],
        "category": _words(
            (tree.xpath('//p[@class="work-meta"]/span[@class="tag tag-muted"]') or [None])[0]
        ),
        "comments": _words((tree.xpath('//p[@class="work-comments"]') or [None])[0]),
        "abstract": _words(_first(tree, '//section[@aria-labelledby="abstract-heading"]/div')),
        "references": tree.xpath('string(//h2[@id="references-heading"]/span[@class="count"])'),
        "funding": {
            _words(div[0]): _words(div[1])
            for div in tree.xpath('//section[@aria-labelledby="funding-heading"]/dl/div')
        },
        "retracted": bool(tree.xpath('//p[contains(@class, "work-notice-retracted")]')),
    }


# The site, imported once ------------------------------------------------------------------


class Work:
    """One work as the site shows it, and the records that describe it."""

    def __init__(self, pk: int, client: Client):
        self.pk = pk
        self.records: list[real_records.Record] = []
        response = _get(client, f"/works/{pk}/")
        if response.status_code in (301, 302):
            response = _get(client, response["Location"])
        self.page = _page(response.content.decode())
        if self.page["tree"].xpath('//li[@class="byline-gap"]'):
            whole = _get(client, f"/works/{pk}/", authors="all")
            self.page["byline"] = _byline(lxml_html.fromstring(whole.content.decode()))
        self.api = _api(client, f"/api/v1/works/{pk}/")
        self.api_byline = _pages(client, f"/api/v1/works/{pk}/authorships/")
        unlinked = {u["position"]: u for u in self.api["unlinked_authors"]}
        if len(unlinked) >= 100:
            unlinked = {}  # the first 100 only; not met in the recordings
        self.api_byline = sorted(
            [*self.api_byline, *unlinked.values()], key=lambda entry: entry["position"]
        )


class Researcher:
    """A researcher page and the API's author detail."""

    def __init__(self, client: Client, path: str):
        tree = lxml_html.fromstring(_get(client, path).content.decode())
        pk = re.search(r"/researchers/(\d+)", path).group(1)
        self.api = _api(client, f"/api/v1/authors/{pk}/")
        counts = _first(tree, '//div[@data-testid="source-counts"]')
        orcid = tree.xpath(
            'string(//ul[@class="identifiers"]//a[starts-with(@href, "https://orcid.org/")]/@href)'
        )
        self.page = {
            "name": _words(tree.xpath('//h1[@id="researcher-name"]')[0]),
            "orcid": orcid.removeprefix("https://orcid.org/") or None,
            "counts": {
                _words(div[0]): _words(div[1])
                for div in (counts.xpath(".//dl/div") if counts is not None else [])
            },
            "as_of": counts.xpath("string(.//h3//time/@datetime)") if counts is not None else None,
            "places": [_place(li) for li in tree.xpath('//ul[@class="glance-institutions"]/li')],
        }


def _place(li) -> dict:
    years = [int(y) for y in re.findall(r"\d{4}", li.xpath('string(span[@class="muted small"])'))]
    return {
        "name": _words(li.xpath("a")[0]),
        "first": years[0] if years else None,
        "last": years[-1] if years else None,
        "current": bool(li.xpath('span[@class="tag" and . = "current"]')),
        "record": "OpenAlex author record"
        in li.xpath('string(span[contains(@class, "affiliation-source")])'),
    }


class Site:
    def __init__(self, recordings: real_records.Recordings):
        self.recordings = recordings
        self.works: dict[int, Work] = {}
        self.missing: list[str] = []  # records whose address leads to no page
        self.untitled: dict[str, int] = {}  # untitled records: their address's status
        self.authors: dict[int, dict] = {}  # author id -> API detail
        self.researchers: dict[str, Researcher | int] = {}  # A id -> pages, or the status

    def author(self, client: Client, pk: int) -> dict:
        if pk not in self.authors:
            self.authors[pk] = _api(client, f"/api/v1/authors/{pk}/")
        return self.authors[pk]


def _address(record: real_records.Record) -> str:
    scheme = "openalex" if record.source == "openalex" else "arxiv"
    return f"/works/{scheme}/{record.key}/"


def visit(client: Client, recordings: real_records.Recordings) -> Site:
    site = Site(recordings)
    for record in recordings.works.values():
        response = _get(client, _address(record))
        found = (
            WORK_PATH.search(response.get("Location", "")) if response.status_code == 302 else None
        )
        if found is None:
            site.missing.append(f"{record.source} {record.key}: {response.status_code}")
            continue
        pk = int(found.group(1))
        if pk not in site.works:
            site.works[pk] = Work(pk, client)
        site.works[pk].records.append(record)
    for key in recordings.untitled:
        site.untitled[key] = _get(client, f"/works/openalex/{key}/").status_code
    for key in recordings.authors:
        response = _get(client, f"/researchers/openalex/{key}/")
        found = response.status_code == 302
        site.researchers[key] = (
            Researcher(client, response["Location"]) if found else response.status_code
        )
    for work in site.works.values():
        for entry in work.api_byline:
            if entry.get("author_id"):
                site.author(client, entry["author_id"])
    return site


# The rule: a shown value is one its records give ---------------------------------------


def _differences(site: Site, expected, shown, where: str, same=operator.eq) -> list[str]:
    """Works whose shown value is none of what their records give (null if none gives one)."""
    found = []
    for work in site.works.values():
        wanted = [expected(record) for record in work.records]
        given = [value for value in wanted if value not in EMPTY]
        value = shown(work)
        fits = any(same(value, one) for one in given) if given else value in EMPTY
        if not fits:
            keys = ", ".join(f"{r.source} {r.key}" for r in work.records)
            found.append(f"{where} of {keys}: shows {value!r}, the source gives {wanted!r}")
    return found


def assert_same(site: Site, expected, page=None, api=None, same=operator.eq) -> None:
    problems = []
    if page is not None:
        problems += _differences(site, expected, page, "page", same)
    if api is not None:
        problems += _differences(site, expected, api, "API", same)
    assert not problems, f"{len(problems)} differences:\n" + "\n".join(problems[:40])
