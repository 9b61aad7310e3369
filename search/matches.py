"""The matches of a search over works: counted, faceted and paged in bounded time.

``WorkMatches`` (in ``search.works``) are plain queries on the work table (the
SQLite path and the trigram fallback). On PostgreSQL, full-text matches are read
from the narrow ``WorkSearch`` rows, and what a search reads is bounded by the
matches it keeps, not by the corpus. The planner's estimate of the matches is
asked first (EXPLAIN, no row read). Unless it expects a large result, the
matches are read through the full-text (GIN) index, at most LARGE_RESULT + 1 of
them: the planner is not shown the query (``UnseenSearchQuery``), so it cannot
guess a word common and scan the whole table instead, whatever its statistics
say. Up to LARGE_RESULT matches are counted, faceted and ranked exactly in that
one statement (``RankedMatches``). A larger result (a common word) is not ranked
in full: the TOPIC_SAMPLE most cited matches are taken, ranked and shown best
first (``SampledMatches``; the planner finds them by walking an index in citation
order until it has enough); the page says the count is an estimate and that the
facet counts are among those works. A result the planner expects large is
sampled so at once, from a bounded stretch of that index (``BoundedSample``):
counting it first would read LARGE_RESULT rows for nothing. Topic counts come
from the best TOPIC_SAMPLE matches in either case, each work's topics looked up
in the index.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from django.contrib.postgres.search import SearchQuery, SearchRank
from django.db import connection
from django.db.models import F, QuerySet

from catalogue.models import Topic, Work, WorkSearch, WorkTopic
from search.cards import works_listed

FACET_LIMIT = 12
# Topic counts of a larger full-text result come from its best this-many works:
# counting the topics of every one of tens of thousands of matches would cost
# more than the rest of the page together. The page says so when it happens.
TOPIC_SAMPLE = 1000
# Matches counted, faceted and ranked exactly; past this many a search ranks only
# the most cited TOPIC_SAMPLE of them (see the module's docstring).
LARGE_RESULT = 5000
# Past this many times LARGE_RESULT matches expected by the planner, a search samples
# the most cited at once (``BoundedSample``), without counting them first.
COMMON_ESTIMATE = 1.5


class WorksById(Sequence):
    """The works of a page of results, in order, read (with their bylines, see
    ``search.cards``) only when one of them is asked for: the list entries of the page
    may all be kept already (``pages.entries`` reads ``ids``)."""

    def __init__(self, ids: list[int]):
        self.ids = ids
        self._works: list[Work] | None = None

    def _read(self) -> list[Work]:
        if self._works is None:
            self._works = works_listed(self.ids)
        return self._works

    def subset(self, ids: list[int]) -> list[Work]:
        """The works ``ids`` (some of this page's, in the page's order), read now."""
        wanted = set(ids)
        if self._works is not None:
            return [work for work in self._works if work.pk in wanted]
        return works_listed([pk for pk in self.ids if pk in wanted])

    def __len__(self) -> int:
        return len(self.ids) if self._works is None else len(self._works)

    def __getitem__(self, index):
        return self._read()[index]


class Matches:
    """What Paginator needs of a result: ``count()``, ``len()``, iteration and slicing
    (``__getitem__``, in the subclasses)."""

    def count(self) -> int:
        raise NotImplementedError

    def __len__(self) -> int:
        return self.count()

    def __iter__(self):
        return iter(self[:])


def type_facet(value: str, count: int) -> dict:
    label = dict(Work.Type.choices).get(value, value)
    return {"value": value, "label": label, "count": count, "type": value}


class RankedMatches(Matches):
    """Full-text matches on PostgreSQL, read from the narrow ``WorkSearch`` rows.

    One statement matches at most LARGE_RESULT + 1 works and from that single pass
    returns the count, the type facets, the ids of the best TOPIC_SAMPLE works in
    order (the pages shown are cut from them) and the topic facets. Counts and
    type facets cover every match; topic counts cover the best TOPIC_SAMPLE
    matches, which ``topic_sample`` tells the page when there are more. A result
    past LARGE_RESULT is ``overflowing``: it is neither ranked nor faceted here
    (``full_text`` gives it to SampledMatches). Only the works of the page
    shown are then loaded in full, by id.
    """

    ORDER = "rank DESC, cited_by_count DESC NULLS LAST, work_id DESC"

    def __init__(self, rows: QuerySet):
        # rows: the visible, filtered, matching WorkSearch rows annotated with rank
        self.rows = rows
        self._loaded = False

    # Not an estimate: every match is counted (see SampledMatches).
    approximate = False

    def _matched(self) -> tuple[str, tuple]:
        """SQL of the rows counted, faceted and ranked: every match, up to one past
        LARGE_RESULT (a larger result is only known to be larger)."""
        rows = self.rows.order_by().values("work_id", "type", "cited_by_count", "rank")
        return rows[: LARGE_RESULT + 1].query.sql_with_params()

    def _load(self) -> None:
        if self._loaded:
            return
        types, topics, best = self._read()
        types.sort(key=lambda pair: (-pair[1], pair[0]))
        self._sampled = sum(count for _, count in types)
        self._count = self._sampled
        self._types = [type_facet(value, count) for value, count in types[:FACET_LIMIT]]
        self._topics = topics
        self._best = best
        self._loaded = True

    def _read(self) -> tuple[list[tuple[str, int]], list[dict], list[int]]:
        """(type, count) pairs, topic facets and the best ids, in one statement.

        The best works and their topics are read only when no more than
        ``_ranked_at_most()`` rows matched; each best work's topics are looked up
        in the index of work topics, so the cost follows the sample, not the table.
        """
        matched_sql, params = self._matched()
        worktopic = connection.ops.quote_name(WorkTopic._meta.db_table)
        topic = connection.ops.quote_name(Topic._meta.db_table)
        sql = f"""
            WITH m AS MATERIALIZED ({matched_sql}),
            best AS MATERIALIZED (
                SELECT work_id, rank, cited_by_count FROM m
                WHERE (SELECT count(*) FROM m) <= %s
                ORDER BY {self.ORDER} LIMIT %s
            )
            SELECT 'type', type, '', count(*), NULL FROM m GROUP BY type
            UNION ALL
            SELECT 'best', '', '', count(*), array_agg(work_id ORDER BY {self.ORDER}) FROM best
            UNION ALL
            (SELECT 'topic', t.key, t.name, c.n, NULL
             FROM (SELECT wt.topic_id, count(*) AS n FROM {worktopic} wt
                   WHERE wt.work_id = ANY(ARRAY(SELECT work_id FROM best))
                   GROUP BY wt.topic_id) c
             JOIN {topic} t ON t.id = c.topic_id
             ORDER BY c.n DESC, t.name
             LIMIT %s)
        """  # noqa: S608 - SQL compiled by Django, quoted identifiers, values as parameters
        types, topics, best = [], [], []
        with connection.cursor() as cursor:
            cursor.execute(sql, (*params, self._ranked_at_most(), TOPIC_SAMPLE, FACET_LIMIT))
            for kind, key, label, count, ids in cursor.fetchall():
                if kind == "type":
                    types.append((key, count))
                elif kind == "topic":
                    topics.append({"value": key, "label": label, "count": count})
                else:
                    best = ids or []
        return types, topics, best

    def _ranked_at_most(self) -> int:
        """Matched rows ranked at most: past it the statement only counts them."""
        return LARGE_RESULT

    @property
    def overflowing(self) -> bool:
        """More than LARGE_RESULT matches: too many to rank in full."""
        self._load()
        return self._sampled > LARGE_RESULT

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
    ``rows`` match with the query shown to the planner, which then knows the word
    common and walks the citation index.
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

    def _ranked_at_most(self) -> int:
        return TOPIC_SAMPLE  # every row of the sample

    @property
    def overflowing(self) -> bool:
        return False

    @property
    def topic_sample(self) -> int | None:
        """How many works the type and topic counts cover, when not every match."""
        self._load()
        return self._sampled if self.approximate else None


CITED_ORDER = [F("cited_by_count").desc(nulls_last=True), "-work_id"]


class BoundedSample(SampledMatches):
    """SampledMatches for a result the planner expects large, read from at most the
    first ``reach`` rows of the citation index, the stretch where a result of
    LARGE_RESULT matches spread evenly would hold TOPIC_SAMPLE of them.

    A result as large as the planner expects fills its sample long before the end of
    that stretch; one it overrated does not (``filled`` is False), and is counted
    from the full-text index instead (``full_text``), so a wrong guess costs a
    bounded read, never the whole table.
    """

    def __init__(self, rows: QuerySet, estimate: int, narrow: QuerySet, query: str):
        super().__init__(rows, estimate)
        self.narrow = narrow
        self.query = query

    def _matched(self) -> tuple[str, tuple]:
        columns = ("work_id", "type", "cited_by_count", "search_vector")
        walk = self.narrow.order_by(*CITED_ORDER).values(*columns)
        walk_sql, walk_params = walk.query.sql_with_params()
        table = WorkSearch._meta.db_table
        sql = f"""
            SELECT top.work_id, top.type, top.cited_by_count,
                   ts_rank(top.search_vector, websearch_to_tsquery('english', %s)) AS rank
            FROM ({walk_sql}
                  LIMIT (SELECT ceil(greatest(reltuples, 1) * %s)::bigint
                         FROM pg_class WHERE oid = %s::regclass)) top
            WHERE top.search_vector @@ websearch_to_tsquery('english', %s)
            ORDER BY top.cited_by_count DESC NULLS LAST, top.work_id DESC
            LIMIT %s
        """  # noqa: S608 - SQL compiled by Django, a model's table, values as parameters
        reach = TOPIC_SAMPLE / LARGE_RESULT
        params = (self.query, *walk_params, reach, table, self.query, TOPIC_SAMPLE)
        return sql, params

    @property
    def filled(self) -> bool:
        """Whether the stretch read held a whole sample: the most cited matches."""
        self._load()
        return self._sampled >= TOPIC_SAMPLE


class UnseenSearchQuery(SearchQuery):
    """A full-text query the planner plans without reading it: ``(SELECT query)``.

    Planned with the default estimate of a match (a few in a thousand), a search
    always reads its matches through the full-text index; shown the query, the
    planner may guess a word common from its statistics and scan the whole table,
    which for a word it guessed wrong reads every row.
    """

    def as_sql(self, compiler, connection, function=None, template=None):
        sql, params = super().as_sql(compiler, connection, function, template)
        return f"(SELECT {sql})", params


def estimated_rows(rows: QuerySet) -> int:
    """How many rows the planner expects ``rows`` to hold (from its statistics)."""
    sql, params = rows.order_by().values("work_id").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    plan = plan if isinstance(plan, list) else json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])


def full_text(narrow: QuerySet, query: str) -> RankedMatches:
    """The ``narrow`` search rows (visible, filtered) matching ``query``: every match
    ranked, or for a large result the most cited ones (SampledMatches).

    The planner's estimate is asked first (EXPLAIN: no row read). A result it expects
    larger than COMMON_ESTIMATE times LARGE_RESULT is sampled at once, reading at most
    a bounded stretch of the citation index (``BoundedSample``); otherwise, or when
    that stretch holds too few matches, the matches are counted first through the
    index, at most LARGE_RESULT + 1 of them (RankedMatches), so a rare word never
    costs what a common one does.
    """
    text = SearchQuery(query, config="english", search_type="websearch")
    rank = SearchRank(F("search_vector"), text)
    common = narrow.filter(search_vector=text).annotate(rank=rank)
    estimate = estimated_rows(common)
    if estimate > COMMON_ESTIMATE * LARGE_RESULT:
        sampled = BoundedSample(common, estimate, narrow, query)
        if sampled.filled:
            return sampled
    unseen = UnseenSearchQuery(query, config="english", search_type="websearch")
    matches = RankedMatches(narrow.filter(search_vector=unseen).annotate(rank=rank))
    if not matches.overflowing:
        return matches
    return SampledMatches(common, max(estimate, LARGE_RESULT + 1))
