"""Search over works (researchers: ``search.names``), and the search form.

On PostgreSQL, works are matched with full-text search (English stemming over
title and abstract, ranked with title hits weighing more). When full-text search
finds no work, the trigram index of the normalised titles is asked for titles
close to the query (a misspelt word): at most TITLE_CANDIDATES of them, within
TITLE_TIMEOUT_MS, so the fallback never compares the query with every title.
A query that names a researcher asks for no such fallback (the page lists the
researcher instead). Other databases (the embedded SQLite default) match every
word of the query as a substring.

Ties are broken by the record's weight (citations), then by id, so the order is
stable across pages.

A query that matches a large share of the corpus (a common word) is not ranked
in full on PostgreSQL: ranking, counting and faceting every one of a third of
a million works costs in proportion to the corpus. When the planner expects
more than LARGE_RESULT matches, the TOPIC_SAMPLE most cited matches are
taken, ranked and shown best first; for a common word the planner finds them
by walking an index in citation order until it has enough, which costs the
same whatever the corpus size. The page says the count is an estimate and that
the facet counts are among those works. Smaller results are matched, counted
and ranked in full.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce
from operator import and_

from django import forms
from django.contrib.postgres.search import (
    SearchQuery,
    SearchRank,
    TrigramWordSimilarity,
)
from django.core.exceptions import ValidationError
from django.db import DatabaseError, connection
from django.db.models import Count, F, Q, QuerySet, Value
from django.db.models.functions import Coalesce

from catalogue.filters import OPEN_ACCESS_CHOICES, open_access_q
from catalogue.identifiers import normalize_title
from catalogue.models import Topic, Work, WorkSearch, WorkTopic
from catalogue.planner import query_settings

MAX_QUERY_LENGTH = 200
MAX_WORDS = 12
TITLE_SIMILARITY = 0.5
# Titles close to a query that full-text search cannot answer: read at most, and for how long.
TITLE_CANDIDATES = 200
TITLE_TIMEOUT_MS = 300
FACET_LIMIT = 12
# Topic counts of a larger full-text result come from its best this-many works:
# counting the topics of every one of tens of thousands of matches would cost
# more than the rest of the page together. The page says so when it happens.
TOPIC_SAMPLE = 1000
# Expected matches from which a search ranks only the most cited TOPIC_SAMPLE of
# them (see the module's docstring).
LARGE_RESULT = 5000


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


class WorksById(Sequence):
    """The works of a page of results, in order, read (with their bylines) only when one
    of them is asked for: the list entries of the page may all come from the cache
    (``pages.cache.work_items_render`` reads ``ids``)."""

    def __init__(self, ids: list[int]):
        self.ids = ids
        self._works: list[Work] | None = None

    def _read(self) -> list[Work]:
        from catalogue.selectors import works_with_authors

        if self._works is None:
            found = works_with_authors(Work.objects.filter(pk__in=self.ids)) if self.ids else []
            by_id = {work.pk: work for work in found}
            self._works = [by_id[pk] for pk in self.ids if pk in by_id]
        return self._works

    def __len__(self) -> int:
        return len(self.ids) if self._works is None else len(self._works)

    def __getitem__(self, index):
        return self._read()[index]


class _Matches:
    """What Paginator needs of a result: ``count()``, ``len()``, iteration and slicing
    (``__getitem__``, in the subclasses)."""

    def count(self) -> int:
        raise NotImplementedError

    def __len__(self) -> int:
        return self.count()

    def __iter__(self):
        return iter(self[:])


class WorkMatches(_Matches):
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

    def __getitem__(self, page: slice) -> list[Work]:
        from catalogue.selectors import works_with_authors

        return list(works_with_authors(self.rows.order_by(*self.order))[page])

    def type_facets(self) -> list[dict]:
        """How many of the matching works are of each type, most common first."""
        rows = (
            self.rows.order_by()
            .values("type")
            .annotate(count=Count("id"))
            .order_by("-count", "type")[:FACET_LIMIT]
        )
        return [_type_facet(r["type"], r["count"]) for r in rows]

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


def _type_facet(value: str, count: int) -> dict:
    label = dict(Work.Type.choices).get(value, value)
    return {"value": value, "label": label, "count": count, "type": value}


class RankedMatches(_Matches):
    """Full-text matches on PostgreSQL, read from the narrow ``WorkSearch`` rows.

    One statement matches and ranks every work once and from that single pass
    returns the count, the type facets, the ids of the best TOPIC_SAMPLE works in
    order (the pages shown are cut from them) and the topic facets. Counts and
    type facets cover every match; topic counts cover the best TOPIC_SAMPLE
    matches, which ``topic_sample`` tells the page when there are more. Only the
    works of the page shown are then loaded in full, by id.
    """

    ORDER = "rank DESC, cited_by_count DESC NULLS LAST, work_id DESC"

    def __init__(self, rows: QuerySet):
        # rows: the visible, filtered, matching WorkSearch rows annotated with rank
        self.rows = rows
        self._loaded = False

    # Not an estimate: every match is counted (see SampledMatches).
    approximate = False

    def _matched(self) -> tuple[str, tuple]:
        """SQL of the rows counted, faceted and ranked: here every match."""
        rows = self.rows.order_by().values("work_id", "type", "cited_by_count", "rank")
        return rows.query.sql_with_params()

    def _load(self) -> None:
        if self._loaded:
            return
        matched_sql, params = self._matched()
        worktopic = connection.ops.quote_name(WorkTopic._meta.db_table)
        topic = connection.ops.quote_name(Topic._meta.db_table)
        sql = f"""
            WITH m AS MATERIALIZED ({matched_sql}),
            best AS MATERIALIZED (
                SELECT work_id, rank, cited_by_count FROM m ORDER BY {self.ORDER} LIMIT %s
            )
            SELECT 'type', type, '', count(*), NULL FROM m GROUP BY type
            UNION ALL
            SELECT 'best', '', '', count(*), array_agg(work_id ORDER BY {self.ORDER}) FROM best
            UNION ALL
            (SELECT 'topic', t.key, t.name, count(*), NULL
             FROM best b
             JOIN {worktopic} wt ON wt.work_id = b.work_id
             JOIN {topic} t ON t.id = wt.topic_id
             GROUP BY t.id, t.key, t.name
             ORDER BY count(*) DESC, t.name
             LIMIT %s)
        """  # noqa: S608 - SQL compiled by Django, quoted identifiers, values as parameters
        types, topics, best = [], [], []
        with connection.cursor() as cursor:
            cursor.execute(sql, (*params, TOPIC_SAMPLE, FACET_LIMIT))
            for kind, key, label, count, ids in cursor.fetchall():
                if kind == "type":
                    types.append((key, count))
                elif kind == "topic":
                    topics.append({"value": key, "label": label, "count": count})
                else:
                    best = ids or []
        types.sort(key=lambda pair: (-pair[1], pair[0]))
        self._sampled = sum(count for _, count in types)
        self._count = self._sampled
        self._types = [_type_facet(value, count) for value, count in types[:FACET_LIMIT]]
        self._topics = topics
        self._best = best
        self._loaded = True

    def count(self) -> int:
        self._load()
        return self._count

    def __getitem__(self, page: slice) -> WorksById:
        self._load()
        start, stop, _ = page.indices(self._count)
        if stop <= len(self._best):
            ids = self._best[start:stop]
        else:  # deeper than the kept best works
            ranked = self.rows.order_by(
                "-rank", F("cited_by_count").desc(nulls_last=True), "-work_id"
            )
            ids = list(ranked.values_list("work_id", flat=True)[start:stop])
        return WorksById(ids)

    @property
    def topic_sample(self) -> int | None:
        """How many best matches the topic counts cover, when that is not all of them."""
        return TOPIC_SAMPLE if self.count() > TOPIC_SAMPLE else None

    def type_facets(self) -> list[dict]:
        """How many of the matching works are of each type, most common first."""
        self._load()
        return self._types

    def topic_facets(self) -> list[dict]:
        """The topics most common among the best matching works, with counts."""
        self._load()
        return self._topics


class SampledMatches(RankedMatches):
    """A large result: the TOPIC_SAMPLE most cited matches, ranked; the count estimated.

    The type and topic counts are among those works (``topic_sample`` says how
    many); pages past them are cut from the full ranking. When the sample holds
    fewer works than it could, they are every match, and the count is exact.
    """

    approximate = True

    def __init__(self, rows: QuerySet, estimate: int):
        super().__init__(rows)
        self.estimate = estimate

    def _matched(self) -> tuple[str, tuple]:
        # The planner walks the citation index and stops at the sample's end.
        rows = self.rows.order_by(*CITED_ORDER)
        rows = rows.values("work_id", "type", "cited_by_count", "rank")[:TOPIC_SAMPLE]
        return rows.query.sql_with_params()

    def _load(self) -> None:
        super()._load()
        # Fewer than a sample found: they are every match, counted exactly.
        self.approximate = self._sampled >= TOPIC_SAMPLE
        about = int(float(f"{max(self.estimate, self._sampled):.2g}"))  # "about 33,000"
        self._count = about if self.approximate else self._sampled

    @property
    def topic_sample(self) -> int | None:
        """How many works the type and topic counts cover, when not every match."""
        self._load()
        return self._sampled if self.approximate else None


CITED_ORDER = [F("cited_by_count").desc(nulls_last=True), "-work_id"]


def _estimated_rows(rows: QuerySet) -> int:
    """How many rows the planner expects ``rows`` to hold (from its statistics)."""
    sql, params = rows.order_by().values("work_id").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    plan = plan if isinstance(plan, list) else json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])


def _ranked(rows: QuerySet) -> RankedMatches:
    """Every match ranked, or for a large result the most cited ones (SampledMatches)."""
    estimate = _estimated_rows(rows)
    if estimate >= LARGE_RESULT:
        return SampledMatches(rows, estimate)
    return RankedMatches(rows)


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
        text = SearchQuery(query, config="english", search_type="websearch")
        found = _narrow_rows(filters).filter(search_vector=text)
        matches = _ranked(found.annotate(rank=SearchRank(F("search_vector"), text)))
        if matches.count() or not similar_titles:
            return matches
        return _similar_titles(normalize_title(query), filters)
    match = reduce(
        and_,
        (Q(title__icontains=word) | Q(abstract__icontains=word) for word in query_words(query)),
    )
    works = filters.apply(Work.objects.visible()).filter(match).annotate(rank=Value(0.0))
    return WorkMatches(works, [Coalesce("cited_by_count", Value(-1)).desc(), "-id"])


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
            near = near.filter(normalized_title__trigram_word_similar=folded).order_by()
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
