"""Search over researchers' names.

On PostgreSQL a name is looked up in two indexes over the visible researchers
(migration 0029): the words of their names (full-text search, "Ada Lovelace" in
any order), and, when no name holds every word, the trigrams of the accent-folded
name, so "lariviere" finds "Larivière" and a partly typed or misspelt surname
still finds its owner. The trigram lookup reads at most NAME_CANDIDATES names
and gives up after NAME_TIMEOUT_MS, so a query that resembles half the corpus
costs no more than one that resembles nobody. Other databases (the embedded
SQLite default) match every word of the query as a substring.

Researchers found are ranked by how well the name matches (the whole name as
written first; for a misspelt one the closest), then by evidence: a record its
owner claimed, then works, then citations; the id breaks the last ties, so the
order is stable across pages.
"""

from __future__ import annotations

from functools import reduce
from operator import and_

from django.contrib.postgres.search import SearchQuery, TrigramWordSimilarity
from django.db import DatabaseError
from django.db.models import (
    BooleanField,
    Exists,
    ExpressionWrapper,
    F,
    OuterRef,
    Q,
    QuerySet,
    Value,
)

from catalogue.identifiers import normalize_name
from catalogue.models import Author
from catalogue.planner import Unseen, query_settings
from search.works import on_postgres, query_words

# Below this trigram word similarity a name is not offered as a match.
NAME_SIMILARITY = 0.45
# Near matches of a name read at most, and how long their lookup may take.
NAME_CANDIDATES = 200
NAME_TIMEOUT_MS = 300
# The status of a claim its owner won (profiles.Claim, read through Author.claims).
CLAIM_APPROVED = "approved"


def _claimed():
    """True for a researcher whose record its owner claimed."""
    try:
        claims = Author._meta.get_field("claims").related_model
    except Exception:  # claims are not installed: nobody claimed anything  # noqa: BLE001
        return Value(False)
    return Exists(claims.objects.filter(author=OuterRef("pk"), status=CLAIM_APPROVED))


# Evidence that a record is the person looked for, strongest first.
EVIDENCE = [
    F("claimed").desc(),
    F("metrics__works_count").desc(nulls_last=True),
    F("metrics__citations").desc(nulls_last=True),
    "id",
]


def _visible_authors() -> QuerySet[Author]:
    return (
        Author.objects.visible()
        .select_related("last_known_institution", "metrics")
        .annotate(claimed=_claimed())
    )


def _named(authors: QuerySet[Author], query: str, folded: str) -> QuerySet[Author]:
    """Researchers whose name holds every word of ``query`` (full text): the whole name
    as written first, then by evidence."""
    text = SearchQuery(query, config="simple", search_type="websearch")
    named = authors.filter(search_vector=text).annotate(whole_name=_whole(folded))
    return named.order_by(WHOLE, *EVIDENCE)


def _whole(folded: str) -> ExpressionWrapper:
    """True for a researcher whose whole name is ``folded``."""
    return ExpressionWrapper(Q(normalized_name=folded), output_field=BooleanField())


WHOLE = F("whole_name").desc()


def search_authors(query: str) -> QuerySet[Author]:
    """Visible researchers matching ``query``, best first."""
    authors = _visible_authors()
    folded = normalize_name(query)
    if not folded:
        return authors.none()
    if on_postgres():
        named = _named(authors, query, folded)
        return named if named.exists() else _authors_like(authors, folded)
    match = reduce(
        and_,
        (
            Q(display_name__icontains=word) | Q(normalized_name__icontains=folded_word)
            for word, folded_word in zip(query_words(query), query_words(folded), strict=False)
        ),
    )
    return authors.filter(match).annotate(whole_name=_whole(folded)).order_by(WHOLE, *EVIDENCE)


def search_authors_first(query: str, limit: int) -> list[Author]:
    """``search_authors(query)[:limit]``, in one query when the words name someone."""
    folded = normalize_name(query)
    if folded and on_postgres():
        return list(_named(_visible_authors(), query, folded)[:limit]) or _first_like(folded, limit)
    return list(search_authors(query)[:limit])


def named_person(query: str, authors: list[Author]) -> Author | None:
    """The one researcher among ``authors`` whom ``query`` names, if it names exactly one.

    The full name in any order ("Lovelace Ada") names its owner; a part of a
    name ("Lovelace") names a researcher only when no other found one has it.
    """
    words = normalize_name(query).split()
    if not words:
        return None
    exact = [a for a in authors if sorted(a.normalized_name.split()) == sorted(words)]
    if exact:
        return exact[0] if len(exact) == 1 else None
    named = [a for a in authors if set(words) <= set(a.normalized_name.split())]
    return named[0] if len(named) == 1 else None


def names_someone(query: str, authors: list[Author]) -> bool:
    """Whether every word of ``query`` is a word of the name of one of ``authors``: the
    query is a name as it is held, not a misspelling of a title."""
    words = set(normalize_name(query).split())
    return bool(words) and any(words <= set(a.normalized_name.split()) for a in authors)


def _authors_like(authors: QuerySet[Author], folded: str) -> QuerySet[Author]:
    """Names close to ``folded`` (accents, typos), found through the trigram index.

    At most NAME_CANDIDATES names are read, within NAME_TIMEOUT_MS (past it,
    none). The planner prices trigram matching as cheap and scans the whole
    table; with sequential scans off for this one query it reads the index.
    """
    try:
        with _near_settings():
            ids = list(_near(folded).values_list("pk", flat=True))
    except DatabaseError:  # the time ran out: no near name rather than a slow page
        ids = []
    return _likeness_first(authors.filter(pk__in=ids), folded)


def _first_like(folded: str, limit: int) -> list[Author]:
    """``_authors_like(_visible_authors(), folded)[:limit]`` in one statement."""
    try:
        with _near_settings():
            near = _visible_authors().filter(pk__in=_near(folded))
            return list(_likeness_first(near, folded)[:limit])
    except DatabaseError:  # the time ran out: no near name rather than a slow page
        return []


def _near(folded: str) -> QuerySet:
    """The ids of at most NAME_CANDIDATES visible names close to ``folded``, in no order
    (an order would read every close name to sort them), read through the trigram index
    (``Unseen``)."""
    close = Unseen(folded)
    near = Author.objects.visible().filter(normalized_name__trigram_word_similar=close)
    return near.order_by().values("pk")[:NAME_CANDIDATES]


def _near_settings():
    return query_settings(
        {
            "pg_trgm.word_similarity_threshold": f"{NAME_SIMILARITY:.2f}",
            "statement_timeout": NAME_TIMEOUT_MS,
            "enable_seqscan": "off",
        }
    )


def _likeness_first(authors: QuerySet[Author], folded: str) -> QuerySet[Author]:
    """``authors``, the closest name to ``folded`` first, then by evidence."""
    likeness = TrigramWordSimilarity(folded, "normalized_name")
    return authors.annotate(likeness=likeness).order_by("-likeness", *EVIDENCE)
