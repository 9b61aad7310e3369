"""Resolving the authors a batch of works names to Author rows.

Authors with an OpenAlex id or ORCID are found or created by those keys in bulk.
A bare name (arXiv, or OpenAlex without an author id) is matched, in order, to:

1. the author at the same position of the already merged work (this is also how a
   record staff or the owner linked to the work keeps its position);
2. an existing author of the same name with evidence for the work: a co-author in
   common (a linked record, or a name on the byline that also stands on the
   namesake's works), or a topic in common (arXiv categories are topics);
3. the only existing author of that name, when this batch put the same name on
   other works of that author by a source id or a byline position. This is the
   rule for an arXiv-only work: a feed that names someone on works already on
   their record and on one more is speaking of one person. With two namesakes
   the batch proves nothing, and rule 2 must decide;
4. else a new author is created and, when a namesake exists (stored, or created
   earlier in the same batch), a MergeCandidate is raised for staff.

A cannot-link (author, work) never spawns a record. The position the source
gives to a forbidden author, or a bare name whose namesake is forbidden on the
work, goes to another namesake only by rules 1-3; otherwise it stays unlinked:
the name as printed is kept as an UnlinkedAuthorship and no Author is created.
Spawning one would hand the decision back to the source, one ghost per work.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from catalogue.identifiers import normalize_name, surname
from catalogue.models import Author, Authorship, MergeCandidate
from ingestion.ingest.entities import institution_key
from ingestion.ingest.lookups import same_values
from ingestion.ingest.rows import any_of, build, insert_objects, on_postgresql, present_in
from ingestion.ingest.versions import align
from ingestion.records import AuthorRef, WorkRecord

KNOWN_COLUMNS = ["id", "openalex_id", "orcid", "merged_into"]
CONFIDENCE_ID = 1.0
CONFIDENCE_POSITION = 0.9
CONFIDENCE_SHARED_EVIDENCE = 0.75
CONFIDENCE_SAME_BATCH = 0.7
CONFIDENCE_NEW_NAME = 0.6


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
        openalex_id=ref.openalex_id,
        orcid=ref.orcid,
        last_known_institution_id=known[0].pk if known else None,
    )


class AuthorResolver:
    def __init__(self, constraints: Constraints, institutions: dict | None = None):
        self.constraints = constraints
        self.institutions = institutions or {}
        self.merge_candidates: list[MergeCandidate] = []
        # Authors created from a bare name in this batch, with the co-author names and
        # topics of the work that introduced them, so a second work can share evidence.
        self._fresh: dict[str, list[tuple[Author, set[str]]]] = defaultdict(list)
        # Positions whose source-named author a cannot-link keeps off the work.
        self._held: set[tuple[int, int]] = set()
        # Name -> records this batch gave that name by a source id or a byline position.
        self._strong: dict[str, set[int]] = defaultdict(set)
        # (work id, position) -> the reference left unlinked (see the module docstring).
        self.unlinked: dict[tuple[int, int], AuthorRef] = {}

    def resolve(self, items: list[Item]) -> dict[tuple[int, int], Resolved]:
        """Return the author of every (work id, position) named in ``items``."""
        result: dict[tuple[int, int], Resolved] = {}
        by_id = self._resolve_identified(items)
        pending: list[tuple[Item, AuthorRef]] = []
        for item in items:
            for ref in item.record.authors:
                author = by_id.get(ref.openalex_id or "") or by_id.get(f"orcid:{ref.orcid}")
                if author and not self.constraints.forbids(author.pk, item.work_id):
                    result[(item.work_id, ref.position)] = Resolved(author, CONFIDENCE_ID)
                    self._strong[normalize_name(ref.name)].add(author.pk)
                elif author is None:
                    pending.append((item, ref))
                else:
                    self._held.add((item.work_id, ref.position))
                    pending.append((item, AuthorRef(ref.position, ref.name, ref.raw_name)))
        if pending:
            self._resolve_names(pending, result)
        return result

    def follow(self, items: list[Item]) -> None:
        """Take in records that do not write their work's byline (``versions``).

        Their identified authors exist, as they would had the record come first; and
        each of their names that the kept byline gives to an author (aligned by name)
        names that author for rule 3, as a byline position does.
        """
        self._resolve_identified(items)
        for item in items:
            kept = [a for a in item.existing if a.author_id]
            names = [ref.name for ref in item.record.authors]
            entries = [a.raw_name or a.author.display_name for a in kept]
            for i, j in align(entries, names):
                self._strong[normalize_name(names[j])].add(kept[i].author_id)

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
                result[(item.work_id, ref.position)] = Resolved(author, CONFIDENCE_POSITION)
                self._strong[normalize_name(ref.name)].add(author.pk)
            else:
                unmatched.append((item, ref))
        if not unmatched:
            return
        names = {normalize_name(ref.name) for _, ref in unmatched}
        namesakes: dict[str, list[Author]] = defaultdict(list)
        if on_postgresql():
            matches = Author.objects.filter(
                any_of("pk", same_values(Author, "normalized_name", names))
            )
        else:
            matches = Author.objects.filter(any_of("normalized_name", names))
        for author in matches.visible():
            namesakes[author.normalized_name].append(author)
        evidence = self._shared_evidence(unmatched, namesakes, result)
        for item, ref in unmatched:
            match = self._match_name(item, ref, namesakes, evidence)
            if match is None:
                self.unlinked[(item.work_id, ref.position)] = ref
            else:
                result[(item.work_id, ref.position)] = match

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

    @staticmethod
    def _shared_evidence(unmatched, namesakes, result) -> set[tuple[int, int, int]]:
        """(candidate id, work id, position) where the candidate shares a co-author or a topic.

        A co-author is shared when a record linked to the work is on one of the
        candidate's works, or when another name on the byline stands on one of them
        (the co-authors of an arXiv-only work are bare names too).
        """
        candidate_ids = {a.pk for group in namesakes.values() for a in group}
        if not candidate_ids:
            return set()
        coauthors: dict[int, set[int]] = defaultdict(set)
        topic_keys: dict[int, set[str]] = defaultdict(set)
        byline: dict[int, set[str]] = defaultdict(set)
        for work_id, position in result:
            coauthors[work_id].add(result[(work_id, position)].author.pk)
        for item, _ in unmatched:
            topic_keys[item.work_id] = {t.key for t in item.record.topics}
            byline[item.work_id] = {normalize_name(r.name) for r in item.record.authors} - {""}
        known_coauthors = {a for ids in coauthors.values() for a in ids}
        known_topics = {k for keys in topic_keys.values() for k in keys}
        known_names = {n for names in byline.values() for n in names}
        pairs = _candidate_links(candidate_ids, "work__authorships__author_id", known_coauthors)
        topics = _candidate_links(candidate_ids, "work__work_topics__topic__key", known_topics)
        names = _candidate_links(
            candidate_ids, "work__authorships__author__normalized_name", known_names
        )
        evidence = set()
        for item, ref in unmatched:
            own = normalize_name(ref.name)
            for candidate in candidate_ids:
                shares_person = any(
                    (candidate, c) in pairs for c in coauthors[item.work_id] if c != candidate
                ) or any((candidate, n) in names for n in byline[item.work_id] if n != own)
                shares_topic = any((candidate, k) in topics for k in topic_keys[item.work_id])
                if shares_person or shares_topic:
                    evidence.add((candidate, item.work_id, ref.position))
        return evidence

    def _match_name(self, item: Item, ref: AuthorRef, namesakes, evidence) -> Resolved | None:
        """The record a bare name goes to by rules 2-4, or None to leave it unlinked."""
        name = normalize_name(ref.name)
        everyone = namesakes.get(name, [])
        group = [a for a in everyone if not self.constraints.forbids(a.pk, item.work_id)]
        supported = [a for a in group if (a.pk, item.work_id, ref.position) in evidence]
        if supported:
            return Resolved(supported[0], CONFIDENCE_SHARED_EVIDENCE)
        if len(everyone) == 1 and group and group[0].pk in self._strong[name]:
            return Resolved(group[0], CONFIDENCE_SAME_BATCH)
        if (item.work_id, ref.position) in self._held or len(group) < len(everyone):
            return None  # a cannot-link never spawns a record
        context = _work_context(item.record, ref)
        for fresh, seen in self._fresh[name]:
            if seen & context:
                seen |= context
                return Resolved(fresh, CONFIDENCE_SHARED_EVIDENCE)
        author = _new_author(AuthorRef(ref.position, ref.name, ref.raw_name))
        author.save()
        # A namesake this batch created, with nothing in common yet, is a namesake too.
        earlier = [fresh for fresh, _ in self._fresh[name]]
        self._fresh[name].append((author, context))
        for other in group + earlier:
            self.merge_candidates.append(
                MergeCandidate(
                    kind=MergeCandidate.Kind.AUTHOR,
                    author_a=other,
                    author_b=author,
                    reason="Same name, but no shared co-author or topic yet",
                    score=0.5,
                )
            )
        return Resolved(author, CONFIDENCE_NEW_NAME)


def _candidate_links(candidate_ids: set[int], path: str, wanted: set) -> set[tuple]:
    """(candidate, value) pairs where a candidate's works reach one of ``wanted`` along ``path``."""
    if not wanted:
        return set()
    rows = Authorship.objects.filter(author_id__in=candidate_ids, **{f"{path}__in": wanted})
    return set(rows.values_list("author_id", path))


def _work_context(record: WorkRecord, ref: AuthorRef) -> set[str]:
    """What a bare-named author on this work is known by: co-author names and topics."""
    names = {f"name:{normalize_name(r.name)}" for r in record.authors if r.position != ref.position}
    return names | {f"topic:{t.key}" for t in record.topics}
