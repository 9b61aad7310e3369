"""Search over works (researchers: ``search.names``), and the search form.

On PostgreSQL, works are matched with full-text search (English stemming over
title and abstract, ranked with title hits weighing more). When full-text search
finds no work, the trigram index of the normalised titles is asked for titles
close to the query (a misspelt word): at most TITLE_CANDIDATES of them, within
TITLE_TIMEOUT_MS, so the fallback never compares the query with every title.
When the words do match works and only the filters left none, the result stays
empty: the words were not misspelt.
A query that names a researcher asks for no such fallback (the page lists the
researcher instead). Other databases (the embedded SQLite default) match every
word of the query as a substring.

Ties are broken by the record's weight (citations), then by id, so the order is
stable across pages.

Full-text matches are counted, ranked and faceted in bounded time, through the
index, however common the words (``search.matches``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce
from operator import and_

from django import forms
from django.contrib.postgres.search import SearchQuery, TrigramWordSimilarity
from django.core.exceptions import ValidationError
from django.db import DatabaseError, connection
from django.db.models import Count, F, Q, QuerySet, Value
from django.db.models.functions import Coalesce

from catalogue.filters import OPEN_ACCESS_CHOICES, open_access_q
from catalogue.identifiers import normalize_title
from catalogue.models import Topic, Work, WorkSearch, WorkTopic
from catalogue.planner import Unseen, query_settings
from search.matches import (
    FACET_LIMIT,
    Matches,
    RankedMatches,
    WorksById,
    full_text,
    type_facet,
)

MAX_QUERY_LENGTH = 200
MAX_WORDS = 12
TITLE_SIMILARITY = 0.5
# Titles close to a query that full-text search cannot answer: read at most, and for how long.
TITLE_CANDIDATES = 200
TITLE_TIMEOUT_MS = 300


@dataclass(frozen=True)
class WorkFilters:
    """Validated filters for the works part of a search (see forms.SearchForm)."""

    year_from: int | None = None
    year_to: int | None = None
    type: str = ""
    topic: Topic | None = None
    oa: str = ""  # a catalogue.filters.OPEN_ACCESS_CHOICES value

    def apply(self, works: QuerySet, *, id_field: str = "id") -> QuerySet:
        """Filter works (or their narrow search rows, whose id is ``work_id``)."""
        if self.year_from is not None:
            works = works.filter(publication_year__gte=self.year_from)
        if self.year_to is not None:
            works = works.filter(publication_year__lte=self.year_to)
        if self.type:
            works = works.filter(type=self.type)
        if self.topic is not None:
            tagged = WorkTopic.objects.filter(topic=self.topic).values("work_id")
            works = works.filter(**{f"{id_field}__in": tagged})
        if self.oa and id_field == "id":
            works = works.filter(open_access_q(self.oa))
        elif self.oa:  # the narrow search rows do not carry access: ask the works
            matching = Work.objects.filter(open_access_q(self.oa)).values("id")
            works = works.filter(**{f"{id_field}__in": matching})
        return works

    @property
    def active(self) -> bool:
        return bool(
            self.year_from is not None
            or self.year_to is not None
            or self.type
            or self.topic
            or self.oa
        )


def clean_query(raw: str) -> str:
    """The query as searched: trimmed, at most MAX_QUERY_LENGTH characters."""
    return " ".join(raw.split())[:MAX_QUERY_LENGTH]


def query_words(text: str) -> list[str]:
    return text.split()[:MAX_WORDS]


def on_postgres() -> bool:
    return connection.vendor == "postgresql"


class WorkMatches(Matches):
    """The works matching a search, best first: counted, paged and faceted.

    Plain queries on the work table (the SQLite path and the trigram fallback).
    """

    # Topic counts come from every match here (see RankedMatches.topic_sample).
    topic_sample: int | None = None

    def __init__(self, rows: QuerySet, order: list):
        self.rows = rows
        self.order = order
        self._count: int | None = None

    def count(self) -> int:
        if self._count is None:
            self._count = self.rows.count()
        return self._count

    def __getitem__(self, page: slice) -> WorksById:
        ids = self.rows.order_by(*self.order).values_list("pk", flat=True)[page]
        return WorksById(list(ids))

    def type_facets(self) -> list[dict]:
        """How many of the matching works are of each type, most common first."""
        rows = (
            self.rows.order_by()
            .values("type")
            .annotate(count=Count("id"))
            .order_by("-count", "type")[:FACET_LIMIT]
        )
        return [type_facet(r["type"], r["count"]) for r in rows]

    def topic_facets(self) -> list[dict]:
        """The topics most common among the matching works, with counts."""
        rows = (
            WorkTopic.objects.filter(work_id__in=self.rows.order_by().values("id"))
            .values("topic_id", "topic__name", "topic__key")
            .annotate(count=Count("work_id"))
            .order_by("-count", "topic__name")[:FACET_LIMIT]
        )
        return [
            {"value": r["topic__key"], "label": r["topic__name"], "count": r["count"]} for r in rows
        ]


def _narrow_rows(filters: WorkFilters) -> QuerySet:
    return filters.apply(WorkSearch.objects.filter(visible=True), id_field="work_id")


def search_works(
    query: str, filters: WorkFilters | None = None, *, similar_titles: bool = True
) -> WorkMatches | RankedMatches:
    """Visible works matching ``query`` and ``filters``, best first.

    ``similar_titles``: when full-text search finds nothing, look for titles close
    to the query (PostgreSQL; see the module's docstring).
    """
    filters = filters or WorkFilters()
    if not query_words(query):
        return WorkMatches(Work.objects.none(), ["-id"])
    if on_postgres():
        matches = full_text(_narrow_rows(filters), query)
        if matches.count() or not similar_titles or _filtered_away(query, filters):
            return matches
        return _similar_titles(normalize_title(query), filters)
    match = reduce(
        and_,
        (Q(title__icontains=word) | Q(abstract__icontains=word) for word in query_words(query)),
    )
    works = filters.apply(Work.objects.visible()).filter(match).annotate(rank=Value(0.0))
    return WorkMatches(works, [Coalesce("cited_by_count", Value(-1)).desc(), "-id"])


def _filtered_away(query: str, filters: WorkFilters) -> bool:
    """Whether works match ``query`` and the filters alone left none.

    Then the words were found as written: titles merely close to them would
    answer a question nobody asked, so the result stays empty.
    """
    if not filters.active:
        return False
    text = SearchQuery(query, config="english", search_type="websearch")
    # Through the full-text index: a scan of every row looking for a first match
    # reads them all when no work holds the words.
    with query_settings({"enable_seqscan": "off"}):
        return _narrow_rows(WorkFilters()).filter(search_vector=text).exists()


def _similar_titles(folded: str, filters: WorkFilters) -> WorkMatches:
    """Works whose title is close to ``folded``, found through the trigram index:
    at most TITLE_CANDIDATES, read within TITLE_TIMEOUT_MS (past it, none)."""
    if not folded:
        return WorkMatches(Work.objects.none(), ["-id"])
    try:
        with query_settings(
            {
                "pg_trgm.word_similarity_threshold": f"{TITLE_SIMILARITY:.2f}",
                "statement_timeout": TITLE_TIMEOUT_MS,
                "enable_seqscan": "off",
            }
        ):
            near = filters.apply(Work.objects.visible())
            near = near.filter(normalized_title__trigram_word_similar=Unseen(folded)).order_by()
            ids = list(near.values_list("pk", flat=True)[:TITLE_CANDIDATES])
    except DatabaseError:  # the time ran out: no close title rather than a slow page
        ids = []
    similar = Work.objects.filter(pk__in=ids).annotate(
        rank=TrigramWordSimilarity(folded, "normalized_title")
    )
    return WorkMatches(similar, ["-rank", F("cited_by_count").desc(nulls_last=True), "-id"])


class YearRangeForm(forms.Form):
    """A form with ``year_from`` / ``year_to`` fields that must not be reversed.

    A reversed range is reported on ``year_to`` and filters on neither end: which
    of the two was meant cannot be told, and half of it would be a filter nobody asked for.
    """

    def clean(self):
        data = super().clean()
        low, high = data.get("year_from"), data.get("year_to")
        if low is not None and high is not None and low > high:
            self.add_error("year_to", "The end year comes before the start year.")
            data.pop("year_from", None)
        return data


class SearchForm(YearRangeForm):
    """The search page's query and filters; a bad filter is reported, never a 500."""

    q = forms.CharField(required=False, max_length=1000, strip=True)
    year_from = forms.IntegerField(required=False, min_value=1000, max_value=2100, label="From")
    year_to = forms.IntegerField(required=False, min_value=1000, max_value=2100, label="To")
    type = forms.ChoiceField(
        required=False, choices=[("", "Any type"), *Work.Type.choices], label="Type"
    )
    topic = forms.CharField(required=False, max_length=100, label="Topic")
    oa = forms.ChoiceField(
        required=False, choices=[("", "Any access"), *OPEN_ACCESS_CHOICES], label="Open access"
    )
    show = forms.ChoiceField(
        required=False, choices=[("", "Everything"), ("researchers", "Researchers only")]
    )

    def clean_q(self) -> str:
        return clean_query(self.cleaned_data.get("q") or "")

    def clean_topic(self) -> Topic | None:
        key = self.cleaned_data.get("topic")
        if not key:
            return None
        topic = Topic.objects.filter(key=key).first()
        if topic is None:
            raise ValidationError("No topic has this key; pick one from the list.")
        return topic

    def filters(self) -> WorkFilters:
        self.is_valid()  # fields that failed validation are left out of cleaned_data
        data = self.cleaned_data
        return WorkFilters(
            year_from=data.get("year_from"),
            year_to=data.get("year_to"),
            type=data.get("type") or "",
            topic=data.get("topic"),
            oa=data.get("oa") or "",
        )
