"""Whole lists of works as one BibTeX, RIS or CSL-JSON download.

A researcher's list can hold thousands of works, so it is streamed: works are
read in chunks (each chunk with its authors in a fixed number of queries) and
written as they come, never held all at once. Citation keys are settled first
from a narrow query (id, title, year, first author), so that two works with the
same first author, year and first title word get ``a``, ``b``... in the order
of their ids: the same keys whatever the sort, the page or the filter.
Abstracts are left out of lists (see ``Format.entry``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import count
from string import ascii_lowercase

from django.db.models import OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, NullIf
from django.http import HttpResponse, StreamingHttpResponse

from catalogue.models import Authorship, UnlinkedAuthorship, Work
from catalogue.tex import as_text
from catalogue.text import one_line
from exports import work as exports

CHUNK = 200


@dataclass(frozen=True)
class Format:
    extension: str
    content_type: str
    start: str
    separator: str
    end: str

    def entry(self, work: Work, key: str) -> str:
        # Without abstracts: a list is for citing, and turning arXiv's LaTeX in
        # thousands of abstracts into text would cost a minute per download.
        # Each work's own export keeps its abstract.
        if self.extension == "bib":
            return exports.to_bibtex(work, key, abstract=False)
        if self.extension == "ris":
            return exports.to_ris(work, abstract=False)
        item = exports.to_csl(work, key, abstract=False)
        return json.dumps(item, ensure_ascii=False, indent=1)


FORMATS = {
    "bib": Format("bib", exports.BIBTEX_CONTENT_TYPE, "", "\n", ""),
    "ris": Format("ris", exports.RIS_CONTENT_TYPE, "", "\r\n", ""),
    "json": Format("json", exports.CSL_CONTENT_TYPE, "[\n", ",\n", "\n]\n"),
}


def _suffix(number: int) -> str:
    """a, b, ..., z, aa, ab, ...: the n-th suffix (from 0)."""
    letters = ""
    number += 1
    while number:
        number, rest = divmod(number - 1, 26)
        letters = ascii_lowercase[rest] + letters
    return letters


def unique_keys(works: QuerySet[Work]) -> dict[int, str]:
    """A citation key for every work of ``works``, unique among them and stable.

    Keys that collide are suffixed in the order of the works' ids, so the oldest
    record keeps ``a`` whatever else is added later in the year.
    """
    linked = Authorship.objects.filter(work=OuterRef("pk")).order_by("position", "id")
    shown = Coalesce(NullIf("author__display_name", Value("")), "raw_name")
    # A name no record holds (UnlinkedAuthorship) may stand first, as in Work.byline().
    unlinked = UnlinkedAuthorship.objects.filter(work=OuterRef("pk")).order_by("position", "id")
    rows = (
        works.order_by("id")
        .select_related(None)
        .prefetch_related(None)
        .only("id", "title", "publication_year", "publication_date", "arxiv_id", "provenance")
        .annotate(
            first_author=Subquery(linked.values(name=shown)[:1]),
            first_position=Subquery(linked.values("position")[:1]),
            first_unlinked=Subquery(unlinked.values("raw_name")[:1]),
            first_unlinked_position=Subquery(unlinked.values("position")[:1]),
        )
    )
    groups: dict[str, list[int]] = defaultdict(list)
    for work in rows.iterator(chunk_size=2000):
        arxiv_names = exports.from_arxiv(work, "authors")
        first = work.first_author
        if work.first_unlinked_position is not None and (
            work.first_position is None or work.first_unlinked_position < work.first_position
        ):
            first = work.first_unlinked
        name = as_text(one_line(first, decode=False), from_arxiv=arxiv_names)
        key = exports.base_key(name, exports.year(work), exports.title_text(work))
        groups[key].append(work.pk)
    taken = set(groups)
    keys: dict[int, str] = {}
    for base, ids in groups.items():
        if len(ids) == 1:
            keys[ids[0]] = base
            continue
        suffixes = (_suffix(n) for n in count())
        for pk in ids:
            key = base + next(suffixes)
            while key in taken:  # "smith2020deep" + "a" may be another work's key
                key = base + next(suffixes)
            taken.add(key)
            keys[pk] = key
    return keys


def render(works: Iterable[Work], keys: dict[int, str], fmt: Format) -> Iterator[str]:
    """The export of ``works`` piece by piece, each work written with its settled key."""
    yield fmt.start
    for index, work in enumerate(works):
        if index:
            yield fmt.separator
        yield fmt.entry(work, keys.get(work.pk) or exports.citation_key(work))
    yield fmt.end


def _attach(response: HttpResponse, name: str, fmt: Format) -> HttpResponse:
    response["Content-Disposition"] = f'attachment; filename="{name}.{fmt.extension}"'
    return response


def streamed(works: QuerySet[Work], *, keys_from: QuerySet[Work], fmt: Format, name: str):
    """A download of every work of ``works``, read in chunks; keys settled over ``keys_from``."""
    keys = unique_keys(keys_from)
    chunks = works.iterator(chunk_size=CHUNK)
    response = StreamingHttpResponse(render(chunks, keys, fmt), content_type=fmt.content_type)
    return _attach(response, name, fmt)


def whole(works: list[Work], *, fmt: Format, name: str) -> HttpResponse:
    """A download of a list already in memory (a page of search results)."""
    keys = unique_keys(Work.objects.filter(pk__in=[w.pk for w in works]))
    body = "".join(render(works, keys, fmt))
    return _attach(HttpResponse(body, content_type=fmt.content_type), name, fmt)
