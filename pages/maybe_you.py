""" "These may be you": what the owner of a claimed record is shown to say who is who.

Drawn for the owner alone, on the viewer's side of their researcher page:

- the open merge candidates naming their record, with the identity engine's
  evidence and score;
- records made here from bare bylines (no source id, no ORCID, nobody holds them)
  in the owner's name blocks whose names agree with one of the owner's;
- bylines no record holds (UnlinkedAuthorship) in those blocks, whose names agree.

Each says why in words (how the names agree, co-authors shared with the owner's
works) and carries the owner's latest request about it. At most ``SHOWN`` of each,
from at most ``SCANNED`` names of the blocks, in a fixed number of queries.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Count, F, Q, QuerySet, Window
from django.db.models.functions import RowNumber

from catalogue.byline_reads import unlinked_shown
from catalogue.models import (
    Author,
    Authorship,
    IdentityRequest,
    LinkConstraint,
    MergeCandidate,
    Work,
)
from curation.identity_requests import name_level, name_words, owner_names
from identity.names import INCOMPATIBLE, block_key, fold, parse_name
from profiles.models import Profile

SHOWN = 12  # records, and bylines, listed
SCANNED = 300  # names of the owner's blocks read to find those that agree
SAMPLE = 3  # works shown of each record
COAUTHORS_NAMED = 2
JOINS = [IdentityRequest.Kind.JOIN_RECORD, IdentityRequest.Kind.JOIN_BYLINE]


@dataclass(frozen=True)
class RecordItem:
    """Another record that may be the owner."""

    record: Author
    works_count: int
    works: list[Work]  # its latest few
    evidence: str
    score: float | None  # the merge candidate's
    candidate: MergeCandidate | None
    held: bool  # someone holds it: only a claim can take it
    request: IdentityRequest | None  # the owner's latest about it


@dataclass(frozen=True)
class BylineItem:
    """A name on a work that no record holds."""

    work: Work
    position: int
    raw_name: str
    evidence: str
    request: IdentityRequest | None


@dataclass(frozen=True)
class MaybeYou:
    records: list[RecordItem]
    bylines: list[BylineItem]
    requests: list[IdentityRequest]  # the owner's latest, any state


def these_may_be_you(*, author: Author) -> MaybeYou:
    asked = list(
        IdentityRequest.objects.filter(author=author, kind__in=JOINS)
        .select_related("other_author", "work")
        .order_by("-created_at", "-pk")[:50]
    )
    latest: dict[tuple, IdentityRequest] = {}
    for request in asked:
        latest.setdefault(_target(request), request)
    return MaybeYou(_records(author, latest), _bylines(author, latest), asked[:SHOWN])


def _target(request: IdentityRequest) -> tuple:
    if request.other_author_id:
        return ("record", request.other_author_id)
    return ("byline", request.work_id, request.position)


def _blocks(author: Author) -> set[str]:
    return ({author.name_block} | {block_key(name) for name in owner_names(author)}) - {""}


def _coauthors(author: Author) -> QuerySet:
    """Ids of the owner's co-authors, as a subquery."""
    works = Authorship.objects.filter(author=author).values("work_id")
    return Authorship.objects.filter(work_id__in=works).exclude(author=author).values("author_id")


def _shared_words(names: list[str]) -> str:
    if not names:
        return ""
    noun = "co-author" if len(names) == 1 else "co-authors"
    shown = ", ".join(names[:COAUTHORS_NAMED]) + (", ..." if len(names) > COAUTHORS_NAMED else "")
    return f", {len(names)} shared {noun} ({shown})"


# Records ----------------------------------------------------------------------------------


def _records(author: Author, latest: dict) -> list[RecordItem]:
    candidates = _candidates(author)
    taken = {other.pk for other, _ in candidates}
    loose = _provisional(author, taken)
    ids = [other.pk for other, _ in candidates] + [record.pk for record, _ in loose]
    if not ids:
        return []
    works, counts = _samples(ids)
    held = set(Profile.objects.filter(author_id__in=taken).values_list("author_id", flat=True))
    shared = _record_coauthors(author, [record.pk for record, _ in loose])
    items = [
        RecordItem(
            other,
            counts.get(other.pk, 0),
            works.get(other.pk, []),
            candidate.reason,
            candidate.score,
            candidate,
            other.pk in held,
            latest.get(("record", other.pk)),
        )
        for other, candidate in candidates
    ]
    for record, level in loose:
        evidence = name_words(level) + _shared_words(shared.get(record.pk, []))
        works_of = works.get(record.pk, [])
        request = latest.get(("record", record.pk))
        items.append(
            RecordItem(
                record, counts.get(record.pk, 0), works_of, evidence, None, None, False, request
            )
        )
    return items


def _candidates(author: Author) -> list[tuple[Author, MergeCandidate]]:
    rows = (
        MergeCandidate.objects.filter(
            Q(author_a=author) | Q(author_b=author),
            kind=MergeCandidate.Kind.AUTHOR,
            status=MergeCandidate.Status.OPEN,
        )
        .select_related("author_a", "author_b")
        .order_by("-score", "-pk")[:SHOWN]
    )
    pairs = []
    for candidate in rows:
        other = candidate.author_b if candidate.author_a_id == author.pk else candidate.author_a
        if not other.merged_into_id and not other.is_deleted:
            pairs.append((other, candidate))
    return pairs


def _provisional(author: Author, taken: set[int]) -> list[tuple[Author, int]]:
    """Records made from bare names in the owner's blocks whose names agree, best first."""
    apart = LinkConstraint.objects.filter(
        kind=LinkConstraint.Kind.CANNOT_LINK, other_author__isnull=False
    )
    no_id = (Q(openalex_id__isnull=True) | Q(openalex_id="")) & (
        Q(orcid__isnull=True) | Q(orcid="")
    )
    rows = (
        Author.objects.visible()
        .filter(no_id, name_block__in=_blocks(author), profile__isnull=True)
        .exclude(pk__in=taken | {author.pk})
        .exclude(pk__in=apart.filter(author=author).values("other_author_id"))
        .exclude(pk__in=apart.filter(other_author=author).values("author_id"))
        .order_by("-pk")[:SCANNED]
    )
    found = [(record, name_level(author, record.display_name)) for record in rows]
    found = [(record, level) for record, level in found if level != INCOMPATIBLE]
    found.sort(key=lambda pair: -pair[1])  # stable: newest first within a level
    return found[:SHOWN]


def _samples(ids: list[int]) -> tuple[dict[int, list[Work]], dict[int, int]]:
    """The latest ``SAMPLE`` works of each record, and how many it holds, in one query."""
    per_record = [F("author_id")]
    latest = [F("work__publication_year").desc(nulls_last=True), F("work_id").desc()]
    rows = (
        Authorship.objects.filter(author_id__in=ids, work__merged_into__isnull=True)
        .select_related("work")
        .annotate(
            rank=Window(RowNumber(), partition_by=per_record, order_by=latest),
            total=Window(Count("pk"), partition_by=per_record),
        )
        .filter(rank__lte=SAMPLE)
        .order_by("author_id", "rank")
    )
    works: dict[int, list[Work]] = defaultdict(list)
    counts: dict[int, int] = {}
    for row in rows:
        works[row.author_id].append(row.work)
        counts[row.author_id] = row.total
    return works, counts


def _record_coauthors(author: Author, ids: list[int]) -> dict[int, list[str]]:
    """For each record of ``ids``: the names of the owner's co-authors on its works."""
    if not ids:
        return {}
    rows = (
        Authorship.objects.filter(
            work__authorships__author_id__in=ids, author_id__in=_coauthors(author)
        )
        .exclude(author_id__in=ids)
        .values_list("work__authorships__author_id", "author_id", "author__display_name")
        .distinct()
    )
    shared: dict[int, list[str]] = defaultdict(list)
    for record_id, _, name in sorted(rows, key=lambda row: (row[0], row[2])):
        shared[record_id].append(name)
    return shared


# Bylines ---------------------------------------------------------------------------------


def _surname_words(author: Author) -> set[str]:
    """Words a byline of the owner's surname contains, as printed and folded."""
    words: set[str] = set()
    for name in owner_names(author):
        parsed = parse_name(name)
        cores = set(parsed.parts) | set(parsed.cores)
        words |= cores
        words |= {w for w in name.replace(",", " ").split() if fold(w).strip(".") in cores}
    return {word for word in words if len(word) > 1}


def _bylines(author: Author, latest: dict) -> list[BylineItem]:
    words = sorted(_surname_words(author))[:12]
    if not words:
        return []
    named = Q()
    for word in words:
        named |= Q(raw_name__icontains=word)
    held = Authorship.objects.filter(author=author).values("work_id")
    refused = LinkConstraint.objects.filter(
        author=author, kind=LinkConstraint.Kind.CANNOT_LINK, work__isnull=False
    ).values("work_id")
    rows = (
        unlinked_shown()
        .filter(named, work__merged_into__isnull=True)
        .exclude(work_id__in=held)
        .exclude(work_id__in=refused)
        .select_related("work")
        .order_by(F("work__publication_year").desc(nulls_last=True), "-pk")[:SCANNED]
    )
    blocks, found, seen = _blocks(author), [], set()
    for row in rows:
        level = name_level(author, row.raw_name)
        place = (row.work_id, row.position)
        if place in seen or level == INCOMPATIBLE or block_key(row.raw_name) not in blocks:
            continue
        seen.add(place)
        found.append((row, level))
        if len(found) == SHOWN:
            break
    shared = _work_coauthors(author, [row.work_id for row, _ in found])
    return [
        BylineItem(
            row.work,
            row.position,
            row.raw_name,
            name_words(level) + _shared_words(shared.get(row.work_id, [])),
            latest.get(("byline", row.work_id, row.position)),
        )
        for row, level in found
    ]


def _work_coauthors(author: Author, work_ids: list[int]) -> dict[int, list[str]]:
    if not work_ids:
        return {}
    rows = Authorship.objects.filter(
        work_id__in=work_ids, author_id__in=_coauthors(author)
    ).values_list("work_id", "author__display_name")
    shared: dict[int, list[str]] = defaultdict(list)
    for work_id, name in sorted(rows):
        shared[work_id].append(name)
    return shared
