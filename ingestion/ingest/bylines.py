"""Resolving the authors a batch of works names to Author rows.

Authors with an OpenAlex id or ORCID are found or created by those keys in bulk.
A bare name (arXiv, or OpenAlex without an author id) goes, in order:

1. to the author at the same position of the already merged work (this is also
   how a record staff or the owner linked to the work keeps its position);
2. else to the identity engine (``ingestion.people``), with the records of its
   name block and the bylines this batch already placed: it joins the record the
   evidence puts it with (co-authors, places, topics, venue, years, words), or,
   with the other newcomers it stands with, one new record. Pairs between the
   thresholds become merge candidates with their evidence.

Every link keeps why it was made (``Authorship.evidence``).

A cannot-link (author, work) never spawns a record. The position the source
gives to a forbidden author, or a bare name whose namesake is forbidden on the
work, goes to another record only on the engine's evidence; otherwise it stays
unlinked: the name as printed is kept as an UnlinkedAuthorship and no Author is
created. Spawning one would hand the decision back to the source, one ghost per
work.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from catalogue.identifiers import normalize_name, surname
from catalogue.models import Author, Authorship, MergeCandidate
from identity import Byline
from identity.names import block_key
from ingestion.ingest.entities import institution_key
from ingestion.ingest.rows import any_of, build, insert_objects, present_in
from ingestion.ingest.versions import align
from ingestion.people.matching import author_candidate, place
from ingestion.people.records import (
    crowded_blocks,
    fullness,
    institution_keys,
    record_key,
    work_key,
)
from ingestion.records import AuthorRef, WorkRecord

KNOWN_COLUMNS = ["id", "openalex_id", "orcid", "merged_into"]
CONFIDENCE_ID = 1.0
CONFIDENCE_POSITION = 0.9


@dataclass(slots=True)
class Known:
    """An author found by OpenAlex id or ORCID: only what resolving needs, not a model row."""

    pk: int
    openalex_id: str | None
    orcid: str | None
    merged_into_id: int | None


@dataclass(slots=True)
class Resolved:
    author: Author | Known
    confidence: float
    evidence: str = ""


@dataclass(slots=True)
class Item:
    """One work of the batch: its row (saved), its record and its current authorships."""

    work_id: int
    record: WorkRecord
    existing: list[Authorship]
    leads: bool = True  # the record writes the work's byline (``versions``)
    lead_source: str = ""  # the source of the record whose byline the work keeps


class Constraints:
    """The link decisions later imports obey, loaded once per batch."""

    def __init__(
        self,
        cannot: set[tuple[int, int]],
        must: dict[int, set[int]],
        joined: set[int] = frozenset(),
    ):
        self.cannot = cannot  # (author_id, work_id)
        self.must = must  # work_id -> author ids
        self.joined = joined  # works staff merged another work into: their byline is a decision

    def forbids(self, author_id: int, work_id: int) -> bool:
        return (author_id, work_id) in self.cannot


def _known(rows) -> list[Known]:
    return [Known(*row) for row in rows.values_list(*KNOWN_COLUMNS)]


def _follow_merges(authors: dict[str, Known]) -> dict[str, Known]:
    target_ids = {a.merged_into_id for a in authors.values() if a.merged_into_id}
    if not target_ids:
        return authors
    targets = {a.pk: a for a in _known(Author.objects.filter(any_of("pk", target_ids)))}
    return {
        k: targets.get(a.merged_into_id, a) if a.merged_into_id else a for k, a in authors.items()
    }


def _new_author(ref: AuthorRef, institutions: dict | None = None) -> Author:
    name = ref.name or ref.raw_name or "Unknown author"
    known = [
        institutions[k] for k in map(institution_key, ref.institutions) if k in (institutions or {})
    ]
    return build(
        Author,
        display_name=name[:300],
        normalized_name=normalize_name(name)[:300],
        name_block=block_key(name[:300])[:120],
        openalex_id=ref.openalex_id,
        orcid=ref.orcid,
        last_known_institution_id=known[0].pk if known else None,
    )


class AuthorResolver:
    def __init__(self, constraints: Constraints, institutions: dict | None = None):
        self.constraints = constraints
        self.institutions = institutions or {}
        self.merge_candidates: list[MergeCandidate] = []
        # Positions whose source-named author a cannot-link keeps off the work.
        self._held: set[tuple[int, int]] = set()
        # Bylines of this batch already on a record (by id, position, or a kept byline
        # a following record aligns with): evidence for the bare names of the batch.
        self._anchors: list[Byline] = []
        self.absorbed: dict[int, int] = {}  # provisional record -> the record it is folded into
        self.created_blocks: set[str] = set()  # name blocks of the records made with an id
        self._items: list[Item] = []
        # (work id, position) -> the reference left unlinked (see the module docstring).
        self.unlinked: dict[tuple[int, int], AuthorRef] = {}

    def resolve(self, items: list[Item]) -> dict[tuple[int, int], Resolved]:
        """Return the author of every (work id, position) named in ``items``."""
        result: dict[tuple[int, int], Resolved] = {}
        by_id = self._resolve_identified(items)
        self._items = items
        pending: list[tuple[Item, AuthorRef]] = []
        for item in items:
            for ref in item.record.authors:
                author = by_id.get(ref.openalex_id or "")
                how = "OpenAlex author id"
                if author is None:
                    author, how = by_id.get(f"orcid:{ref.orcid}"), "ORCID"
                if author and not self.constraints.forbids(author.pk, item.work_id):
                    result[(item.work_id, ref.position)] = Resolved(author, CONFIDENCE_ID, how)
                elif author is None:
                    pending.append((item, ref))
                else:
                    self._held.add((item.work_id, ref.position))
                    pending.append((item, AuthorRef(ref.position, ref.name, ref.raw_name)))
        self._resolve_names(pending, result)
        return result

    def placed_blocks(self, items: list[Item]) -> set[str]:
        """Name blocks where this batch put a byline on a record by an id."""
        return {
            block_key(_name(item, ref))
            for item in items
            for ref in item.record.authors
            if ref.openalex_id or ref.orcid
        }

    def shared_blocks(self) -> set[str]:
        """Name blocks where this batch made a record with an id beside another record:
        the new record may be a person the other is (a source splitting one under two
        ids), or the evidence a provisional record there waited for."""
        return crowded_blocks(self.created_blocks)

    def follow(self, items: list[Item]) -> None:
        """Take in records that do not write their work's byline (``versions``).

        Their identified authors exist, as they would had the record come first; and
        each of their names that the kept byline gives to an author (aligned by name)
        stands for that author as evidence, as a byline position does.
        """
        self._resolve_identified(items)
        for item in items:
            kept = [a for a in item.existing if a.author_id]
            refs = list(item.record.authors)
            entries = [a.raw_name or a.author.display_name for a in kept]
            for i, j in align(entries, [ref.name for ref in refs]):
                self._anchors.append(self._byline(item, refs[j], {}, kept[i].author_id))

    # Authors with ids ---------------------------------------------------------

    def _resolve_identified(self, items: list[Item]) -> dict[str, Known]:
        refs = [r for item in items for r in item.record.authors if r.openalex_id or r.orcid]
        if not refs:
            return {}
        found = self._read_identified(refs)
        missing = {}
        for ref in refs:
            if not self._lookup(found, ref):
                missing[ref.openalex_id or f"orcid:{ref.orcid}"] = ref
        if missing:
            # In key order: two writers creating some of the same authors then wait for
            # each other in the same order instead of deadlocking.
            fresh = [_new_author(missing[key], self.institutions) for key in sorted(missing)]
            insert_objects(fresh, ignore_conflicts=True)
            self.created_blocks.update(a.name_block for a in fresh if a.name_block)
            # Read back only what was missing (another worker may have created some first).
            found.update(self._read_identified(list(missing.values())))
        self._fill_blanks(found, refs)
        return found

    @staticmethod
    def _lookup(found: dict[str, Known], ref: AuthorRef) -> Known | None:
        return found.get(ref.openalex_id or "") or found.get(f"orcid:{ref.orcid}")

    @staticmethod
    def _read_identified(refs: list[AuthorRef]) -> dict[str, Known]:
        openalex_ids = {r.openalex_id for r in refs if r.openalex_id}
        orcids = {r.orcid for r in refs if r.orcid}
        found: dict[str, Known] = {}
        if openalex_ids:
            for author in _known(Author.objects.filter(present_in("openalex_id", openalex_ids))):
                found[author.openalex_id] = author
        if orcids:
            for author in _known(Author.objects.filter(present_in("orcid", orcids))):
                found[f"orcid:{author.orcid}"] = author
        # An id we have never seen may still belong to a known person through the ORCID.
        for ref in refs:
            if ref.openalex_id and ref.openalex_id not in found and f"orcid:{ref.orcid}" in found:
                found[ref.openalex_id] = found[f"orcid:{ref.orcid}"]
        return _follow_merges(found)

    @staticmethod
    def _fill_blanks(found: dict[str, Known], refs: list[AuthorRef]) -> None:
        taken = {a.orcid for a in found.values() if a.orcid}
        changed = {}
        for ref in refs:
            author = found.get(ref.openalex_id or "")
            if author and ref.orcid and not author.orcid and ref.orcid not in taken:
                author.orcid = ref.orcid
                taken.add(ref.orcid)
                changed[author.pk] = author
        if changed:
            rows = [Author(pk=a.pk, orcid=a.orcid) for a in changed.values()]
            Author.objects.bulk_update(rows, ["orcid"])

    # Bare names ---------------------------------------------------------------

    def _resolve_names(self, pending, result) -> None:
        unmatched = []
        for item, ref in pending:
            author = self._match_position(item, ref)
            if author:
                result[(item.work_id, ref.position)] = Resolved(
                    author, CONFIDENCE_POSITION, "same place on this work's byline"
                )
            else:
                unmatched.append((item, ref))
        newcomers = {_newcomer_id(item, ref): (item, ref) for item, ref in unmatched}
        placed = [
            (item, ref, found.author.pk)
            for item in self._items
            for ref in item.record.authors
            if (found := result.get((item.work_id, ref.position))) is not None
        ]
        if not newcomers:
            return
        blocks = {block_key(_name(item, ref)) for item, ref in unmatched}
        for item, ref, author_id in placed:
            if block_key(_name(item, ref)) in blocks:
                self._anchors.append(self._byline(item, ref, result, author_id))
        forbidden = self._forbidden(newcomers)
        outcome = place(
            [self._byline(item, ref, result) for item, ref in newcomers.values()],
            self._anchors,
            forbidden,
        )
        spawned: dict[int, Author] = {}
        for key, (item, ref) in newcomers.items():
            placement = outcome.placements[key]
            if placement.author_id is not None:
                author = Known(placement.author_id, None, None, None)
                result[(item.work_id, ref.position)] = Resolved(
                    author, _confidence(placement.score), placement.evidence
                )
            elif self._may_spawn(item, ref, forbidden.get(key, ())):
                author = spawned.get(placement.group)
                if author is None:
                    names = [_name(*newcomers[i]) for i in outcome.groups[placement.group]]
                    author = spawned[placement.group] = _spawn(names)
                result[(item.work_id, ref.position)] = Resolved(
                    author, _confidence(placement.score), placement.evidence
                )
            else:
                self.unlinked[(item.work_id, ref.position)] = ref
        self._raise_candidates(outcome, spawned)
        self.absorbed.update(outcome.absorbed)

    def _byline(self, item: Item, ref: AuthorRef, result, author_id: int | None = None) -> Byline:
        """One author position of a batch record, as the identity engine reads it."""
        others = [r for r in item.record.authors if r.position != ref.position]
        linked = [result.get((item.work_id, r.position)) for r in others]
        places = [self.institutions.get(k) for k in map(institution_key, ref.institutions)]
        venue = item.record.venue.name if item.record.venue else ""
        return Byline(
            id=_newcomer_id(item, ref),
            name=_name(item, ref),
            work_id=work_key(item.work_id),
            coauthors=tuple(r.name or r.raw_name for r in others),
            coauthor_ids=tuple(record_key(found.author.pk) for found in linked if found),
            affiliations=(ref.raw_affiliation,) if ref.raw_affiliation else (),
            institutions=institution_keys(i.pk for i in places if i is not None),
            topics=tuple(t.key for t in item.record.topics),
            venue=venue,
            year=item.record.publication_year,
            words=(item.record.title,),
            source_author_id=record_key(author_id) if author_id else "",
        )

    def _forbidden(self, newcomers) -> dict[str, set[int]]:
        """Records a cannot-link keeps each newcomer from (on its work)."""
        forbidden: dict[str, set[int]] = defaultdict(set)
        for author_id, work_id in self.constraints.cannot:
            for key, (item, _) in newcomers.items():
                if item.work_id == work_id:
                    forbidden[key].add(author_id)
        return forbidden

    def _may_spawn(self, item: Item, ref: AuthorRef, forbidden) -> bool:
        """A cannot-link never spawns a record: neither the position whose source-named
        author it keeps off, nor a name whose namesake it keeps off the work."""
        if (item.work_id, ref.position) in self._held:
            return False
        if not forbidden:
            return True
        name = normalize_name(ref.name)
        names = Author.objects.filter(pk__in=forbidden).values_list("normalized_name", flat=True)
        return name not in set(names)

    def _raise_candidates(self, outcome, spawned: dict[int, Author]) -> None:
        for pair in outcome.pairs:
            left, right = _person(pair.left, spawned), _person(pair.right, spawned)
            if left is None or right is None or left == right:
                continue
            self.merge_candidates.append(author_candidate(left, right, pair))

    def _match_position(self, item: Item, ref: AuthorRef) -> Author | None:
        wanted = surname(ref.name)
        candidates = [a for a in item.existing if a.position == ref.position]
        candidates += [a for a in item.existing if a.position != ref.position]
        for authorship in candidates:
            author = authorship.author
            same = normalize_name(author.display_name) == normalize_name(ref.name)
            if (
                same
                or (authorship.position == ref.position and surname(author.display_name) == wanted)
            ) and not self.constraints.forbids(author.pk, item.work_id):
                return author
        return None


def _newcomer_id(item: Item, ref: AuthorRef) -> str:
    return f"in:{item.work_id}:{ref.position}"


def _name(item: Item, ref: AuthorRef) -> str:
    return ref.name or ref.raw_name


def _spawn(names: list[str]) -> Author:
    """One new record for a group of newcomers, under the fullest form of its name."""
    author = _new_author(AuthorRef(0, max(names, key=fullness)))
    author.save()
    return author


def _confidence(score: float) -> float:
    return round(min(max(score, 0.0), 1.0), 3)


def _person(who: tuple[str, int], spawned: dict[int, Author]) -> int | None:
    kind, key = who
    if kind == "record":
        return key
    author = spawned.get(key)
    return author.pk if author else None
