"""Writing a batch of work records: source records, works, authorships, topics, grants.

Everything is done per batch in bulk, so the number of queries does not grow
with the batch size. The caller owns the transaction (one per batch).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

from django.db import IntegrityError, connection, models, transaction
from django.db.models import Q
from django.utils import timezone

from publications.ingest import entities
from publications.ingest.bylines import AuthorResolver, Constraints, Item, Resolved
from publications.ingest.citations import write_citations
from publications.ingest.hashing import Hashed, content_hash
from publications.ingest.lookups import Stored, same_values, stored_records
from publications.ingest.merge import UPDATE_FIELDS, apply_record, apply_venue, new_work
from publications.ingest.rows import (
    JsonText,
    allocate_ids,
    any_of,
    insert_objects,
    insert_rows,
    on_postgresql,
    present_in,
)
from publications.models import (
    Author,
    AuthorInstitution,
    Authorship,
    Grant,
    LinkConstraint,
    MergeCandidate,
    Source,
    SourceRecord,
    UnlinkedAuthorship,
    Work,
    WorkTopic,
)
from publications.records import WorkRecord

AuthorshipInstitution = Authorship.institutions.through


@dataclass
class BatchResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    author_ids: set[int] = field(default_factory=set)
    work_ids: set[int] = field(default_factory=set)

    def add(self, other: BatchResult) -> None:
        self.created += other.created
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.author_ids |= other.author_ids
        self.work_ids |= other.work_ids


@dataclass
class Ahead:
    """Work done for a batch before it is written (in another thread), by ``id()``.

    ``hashes``: the ``Hashed`` of payloads; ``drafts``: a new ``Work`` built from a
    record (``new_work``), used if no stored work matches it. ``stored``: the source
    records already read for the (source, external id) pairs in ``checked``.
    """

    hashes: dict[int, Hashed] = field(default_factory=dict)
    drafts: dict[int, Work] = field(default_factory=dict)
    stored: dict[tuple[str, str], Stored] = field(default_factory=dict)
    checked: set[tuple[str, str]] = field(default_factory=set)

    def draft(self, record: WorkRecord) -> Work:
        return self.drafts.pop(id(record), None) or new_work(record)

    def forget_reads(self) -> None:
        """What was read from the database, or drafted against it, may be stale: read it again."""
        self.checked.clear()
        self.stored.clear()
        self.drafts.clear()


@dataclass
class Pending:
    payload: dict
    record: WorkRecord
    digest: str
    source_record: SourceRecord | None
    text: bytes | None = None  # the payload as JSON, when already serialised
    work: Work | None = None
    is_new: bool = False
    deferred: bool = False  # its work is written by an earlier record of the batch


def _keys(record: WorkRecord) -> list[str]:
    keys = []
    if record.doi:
        keys.append(f"doi:{record.doi}")
    if record.arxiv_id:
        keys.append(f"arxiv:{record.arxiv_id}")
    if record.openalex_id:
        keys.append(f"openalex:{record.openalex_id}")
    return keys


def _work_keys(work: Work) -> list[str]:
    pairs = (("doi", work.doi), ("arxiv", work.arxiv_id), ("openalex", work.openalex_id))
    return [f"{kind}:{value}" for kind, value in pairs if value]


class WorkBatch:
    """One batch of work records from one source."""

    def __init__(
        self, items: list[tuple[dict, WorkRecord]], *, run=None, fetched_at=None, ahead=None
    ):
        self.run = run
        self.fetched_at = fetched_at or timezone.now()
        self.ahead = ahead or Ahead()
        self.result = BatchResult()
        self.items = self._dedupe(items)
        self.merge_candidates: list[MergeCandidate] = []

    @staticmethod
    def _dedupe(items):
        latest = {}
        for payload, record in items:
            latest[(record.source, record.external_id)] = (payload, record)
        return list(latest.values())

    def write(self) -> BatchResult:
        pending = self._changed_only()
        if pending:
            self._find_works(pending)
            self._assign_venues(pending)
            self._create_works(pending)
            later = [p for p in pending if p.deferred]
            pending = [p for p in pending if not p.deferred]
            self._update_works([p for p in pending if not p.is_new])
            self._write_authorships(pending)
            self._write_topics(pending)
            self._write_grants(pending)
            self._write_source_records(pending)
            self._write_citations(pending)
            self._write_merge_candidates()
            if later:
                # Records of a work that an earlier record of this batch writes are written
                # after it, against what it wrote, as if they came in the next batch.
                items = [(p.payload, p.record) for p in later]
                batch = WorkBatch(items, run=self.run, fetched_at=self.fetched_at, ahead=self.ahead)
                self.result.add(batch.write())
        return self.result

    # Source records and what changed -------------------------------------------

    def _changed_only(self) -> list[Pending]:
        keys = {(record.source, record.external_id) for _, record in self.items}
        stored = {key: self.ahead.stored[key] for key in keys if key in self.ahead.stored}
        by_source = defaultdict(set)
        for source, external_id in keys - self.ahead.checked:
            by_source[source].add(external_id)
        for source, ids in by_source.items():
            for external_id, row in stored_records(source, SourceRecord.Entity.WORK, ids).items():
                stored[(source, external_id)] = row
        pending = []
        for payload, record in self.items:
            found = stored.get((record.source, record.external_id))
            row = None
            if found is not None:
                row = SourceRecord(
                    pk=found.pk,
                    source=record.source,
                    entity=SourceRecord.Entity.WORK,
                    external_id=record.external_id,
                    content_hash=found.content_hash,
                    work_id=found.work_id,
                    author_id=found.author_id,
                )
            known = self.ahead.hashes.get(id(payload))
            digest = known.digest if known else content_hash(payload)
            if row and row.content_hash == digest and row.work_id:
                self.result.unchanged += 1
                continue
            text = JsonText(known.text) if known else None
            pending.append(Pending(payload, record, digest, row, text))
        return pending

    # Finding the work each record describes ------------------------------------

    def _find_works(self, pending: list[Pending]) -> None:
        by_key = self._works_by_key(pending)
        linked = self._works_by_source_record(pending)
        in_batch: dict[str, Pending] = {}
        for item in pending:
            item.deferred = False
            work = linked.get(item.source_record.pk) if item.source_record else None
            keys = _keys(item.record)
            work = work or next((by_key[k] for k in keys if k in by_key), None)
            earlier = next((in_batch[k] for k in keys if k in in_batch), None)
            if work is None and earlier is not None:
                item.work, item.deferred = None, True
                continue
            item.work = work
            if work is None:
                item.work, item.is_new = self.ahead.draft(item.record), True
            for key in keys:
                in_batch.setdefault(key, item)
        self._match_titles([p for p in pending if p.is_new])
        claimed = set()
        for item in pending:
            if item.deferred:
                continue
            if id(item.work) in claimed:
                item.work, item.is_new, item.deferred = None, False, True
            else:
                claimed.add(id(item.work))

    def _works_by_key(self, pending: list[Pending]) -> dict[str, Work]:
        dois = {p.record.doi for p in pending if p.record.doi}
        arxiv_ids = {p.record.arxiv_id for p in pending if p.record.arxiv_id}
        openalex_ids = {p.record.openalex_id for p in pending if p.record.openalex_id}
        if not (dois or arxiv_ids or openalex_ids):
            return {}
        query = (
            present_in("doi", dois)
            | present_in("arxiv_id", arxiv_ids)
            | present_in("openalex_id", openalex_ids)
        )
        works = list(Work.objects.filter(query).order_by())
        works = _follow_work_merges(works)
        by_key = {}
        for original, target in works:
            for key in _work_keys(original):
                by_key[key] = target
        return by_key

    @staticmethod
    def _works_by_source_record(pending: list[Pending]) -> dict[int, Work]:
        ids = {p.source_record.work_id: p.source_record.pk for p in pending if p.source_record}
        ids.pop(None, None)
        if not ids:
            return {}
        works = _follow_work_merges(list(Work.objects.filter(any_of("pk", ids))))
        return {ids[original.pk]: target for original, target in works}

    def _match_titles(self, fresh: list[Pending]) -> None:
        """Merge a new record into a work with the same title, year and first author.

        Stored works are matched first, then the new works of earlier records of
        this batch, so where a batch ends makes no difference.
        """
        titles = {p.work.normalized_title for p in fresh if p.work.normalized_title}
        if not titles:
            return
        _hold_titles(titles)
        candidates = defaultdict(list)
        if on_postgresql():
            matches = Work.objects.filter(
                any_of("pk", same_values(Work, "normalized_title", titles))
            )
        else:
            matches = Work.objects.filter(any_of("normalized_title", titles))
        for work in matches.filter(merged_into__isnull=True):
            candidates[work.normalized_title].append(work)
        drafts = set()  # works new in this batch
        for item in fresh:
            title = item.work.normalized_title
            for work in candidates.get(title, []):
                if _conflicting_ids(work, item.record):
                    continue
                if _same_work(work, item.work) and id(work) in drafts:
                    item.work, item.is_new, item.deferred = None, False, True
                    break
                if _same_work(work, item.work):
                    apply_record(work, item.record)
                    item.work, item.is_new = work, False
                    break
                self.merge_candidates.append(
                    MergeCandidate(
                        kind="work", work_a=work, reason=_title_reason(work, item.work), score=0.7
                    )
                )
                self.merge_candidates[-1].pending_b = item  # the new work gets its id later
            if item.is_new and title:
                candidates[title].append(item.work)
                drafts.add(id(item.work))

    # Writing works -------------------------------------------------------------

    def _create_works(self, pending: list[Pending]) -> None:
        fresh = list({id(p.work): p.work for p in pending if p.is_new}.values())
        if not fresh:
            return
        try:
            with transaction.atomic():
                insert_objects(fresh)
        except IntegrityError:
            # Another worker created one of these works meanwhile: find them again.
            for item in pending:
                item.work, item.is_new = None, False
            self.merge_candidates.clear()
            self._find_works(pending)
            self._assign_venues(pending)
            fresh = list({id(p.work): p.work for p in pending if p.is_new}.values())
            insert_objects(fresh)
        self.result.created += len(fresh)
        for work in fresh:
            self.result.work_ids.add(work.pk)

    def _update_works(self, pending: list[Pending]) -> None:
        works = {}
        for item in pending:
            apply_record(item.work, item.record)
            works[item.work.pk] = item.work
        if works:
            Work.objects.bulk_update(list(works.values()), UPDATE_FIELDS)
        self.result.updated += len(works)
        self.result.work_ids.update(works)

    def _assign_venues(self, pending: list[Pending]) -> None:
        """Venues are set before works are written, so a new work is inserted complete."""
        venues = entities.upsert_venues(p.record.venue for p in pending if p.record.venue)
        for item in pending:
            if item.work is None:
                continue
            venue = venues.get(entities.venue_key(item.record.venue)) if item.record.venue else None
            if venue:
                apply_venue(item.work, venue.pk, item.record.source)

    # Authorships ---------------------------------------------------------------

    def _write_authorships(self, pending: list[Pending]) -> None:
        # A work created by this batch has no authorships or link decisions yet.
        known_ids = {p.work.pk for p in pending if not p.is_new}
        existing = defaultdict(list)
        if known_ids:
            rows = Authorship.objects.filter(any_of("work_id", known_ids)).select_related("author")
            for authorship in rows:
                existing[authorship.work_id].append(authorship)
        constraints = _load_constraints(known_ids)
        institutions = entities.upsert_institutions(
            i for p in pending for a in p.record.authors for i in a.institutions
        )
        resolver = AuthorResolver(constraints, institutions)
        items = [Item(p.work.pk, p.record, existing[p.work.pk]) for p in pending]
        resolved = resolver.resolve(items)
        self.merge_candidates.extend(resolver.merge_candidates)
        writer = _AuthorshipWriter(existing, constraints, institutions)
        for item in items:
            writer.plan(item, resolved)
        self.result.author_ids |= writer.commit()
        _write_unlinked(pending, resolver.unlinked)

    # Topics and grants ---------------------------------------------------------

    def _write_topics(self, pending: list[Pending]) -> None:
        topics = entities.upsert_topics(t for p in pending for t in p.record.topics)
        by_source = defaultdict(set)
        rows = {}
        for item in pending:
            by_source[item.record.source].add(item.work.pk)
            for ref in item.record.topics:
                topic = topics.get(ref.key)
                if topic is None:
                    continue
                key = (item.work.pk, topic.pk)
                if key not in rows or ref.score > rows[key][2]:
                    rows[key] = (*key, ref.score, ref.is_primary, item.record.source)
        known = {p.work.pk for p in pending if not p.is_new}
        for source, ids in by_source.items():
            if ids & known:
                WorkTopic.objects.filter(any_of("work_id", ids & known), source=source).delete()
        # Another source may already link a work to the same topic: keep that row.
        linked = {w for w, _ in rows} & known
        kept = set(
            WorkTopic.objects.filter(any_of("work_id", linked)).values_list("work_id", "topic_id")
            if linked
            else ()
        )
        insert_rows(
            WorkTopic,
            ["work", "topic", "score", "is_primary", "source"],
            [row for key, row in rows.items() if key not in kept],
        )

    def _write_grants(self, pending: list[Pending]) -> None:
        with_grants = [p for p in pending if p.record.source == Source.OPENALEX]
        if not with_grants:
            return
        funders = entities.upsert_funders(g for p in with_grants for g in p.record.grants)
        known = {p.work.pk for p in with_grants if not p.is_new}
        if known:
            Grant.objects.filter(any_of("work_id", known)).delete()
        rows = {}
        for item in with_grants:
            for ref in item.record.grants:
                funder = funders.get(entities.funder_key(ref))
                if funder:
                    key = (item.work.pk, funder.pk, ref.award_id[:200])
                    rows[key] = True
        insert_rows(Grant, ["work", "funder", "award_id"], list(rows))

    # Provenance and decisions for staff ----------------------------------------

    def _write_source_records(self, pending: list[Pending]) -> None:
        new, changed = [], []
        now, run_id = self.fetched_at, self.run.pk if self.run else None
        for item in pending:
            row = item.source_record
            if row is None:
                new.append(
                    (
                        item.record.source,
                        SourceRecord.Entity.WORK,
                        item.record.external_id[:255],
                        item.text or item.payload,
                        item.digest,
                        now,
                        now,
                        item.work.pk,
                        run_id,
                    )
                )
                continue
            row.payload = item.payload
            row.content_hash = item.digest
            row.fetched_at = now
            row.work_id = item.work.pk
            row.import_run_id = run_id
            changed.append(row)
        insert_rows(SourceRecord, SOURCE_RECORD_FIELDS, new)
        SourceRecord.objects.bulk_update(
            changed, ["payload", "content_hash", "fetched_at", "work", "import_run"]
        )

    def _write_citations(self, pending: list[Pending]) -> None:
        """Reference lists and arrivals; a cited work whose citations changed is "touched"."""
        arrived = {p.work.openalex_id for p in pending if p.work.openalex_id}
        arrived |= {p.record.openalex_id for p in pending if p.record.openalex_id}
        touched = write_citations([(p.work.pk, p.record) for p in pending], arrived)
        if not touched:
            return
        # Their authors' site citation counts, similar works and followers' alerts follow.
        self.result.work_ids |= touched
        self.result.author_ids |= set(
            Authorship.objects.filter(any_of("work_id", touched))
            .values_list("author_id", flat=True)
            .distinct()
        )

    def _write_merge_candidates(self) -> None:
        rows = []
        for candidate in self.merge_candidates:
            item = getattr(candidate, "pending_b", None)
            if item is not None and item.deferred:
                continue  # raised again when that record is written
            if item is not None:
                candidate.work_b = item.work
            if candidate.kind == MergeCandidate.Kind.WORK:
                candidate.work_a = candidate.work_a  # a work new in this batch has its id now
            if candidate.work_a_id and candidate.work_a_id == candidate.work_b_id:
                continue
            rows.append(candidate)
        apart = _kept_apart_pairs(rows) | _raised_pairs(rows)
        fresh = {}
        for candidate in rows:
            if _pair(candidate) not in apart:
                fresh.setdefault(_pair(candidate), candidate)
        MergeCandidate.objects.bulk_create(list(fresh.values()), ignore_conflicts=True)


def _write_unlinked(pending: list[Pending], unlinked: dict) -> None:
    """Replace each record's unlinked byline positions with what this batch left unlinked."""
    known = defaultdict(set)
    for item in pending:
        if not item.is_new:
            known[item.record.source].add(item.work.pk)
    for source, ids in known.items():
        UnlinkedAuthorship.objects.filter(any_of("work_id", ids), source=source).delete()
    sources = {item.work.pk: item.record.source for item in pending}
    rows = [
        (work_id, position, (ref.raw_name or ref.name or "Unknown author")[:500], sources[work_id])
        for (work_id, position), ref in sorted(unlinked.items())
    ]
    insert_rows(UnlinkedAuthorship, ["work", "position", "raw_name", "source"], rows)


SOURCE_RECORD_FIELDS = [
    "source", "entity", "external_id", "payload", "content_hash", "fetched_at", "first_seen_at",
    "work", "import_run",
]  # fmt: skip


NEW_AUTHORSHIP_FIELDS = [
    "work_id", "author_id", "source", "position", "raw_name", "raw_affiliation",
    "is_corresponding", "confidence",
]  # fmt: skip


@dataclass(slots=True)
class NewAuthorship:
    """An authorship this batch creates: a plain row until it is inserted."""

    work_id: int
    author_id: int
    source: str
    position: int = 0
    raw_name: str = ""
    raw_affiliation: str = ""
    is_corresponding: bool = False
    confidence: float = 1.0
    pk: int | None = None

    def values(self) -> dict:
        return {name: getattr(self, name) for name in NEW_AUTHORSHIP_FIELDS}

    def row(self) -> tuple:
        return (self.pk, *(getattr(self, name) for name in NEW_AUTHORSHIP_FIELDS))


class _AuthorshipWriter:
    """Plans the authorship changes of a batch, then writes them in a few statements."""

    def __init__(self, existing, constraints: Constraints, institutions):
        self.existing = existing
        self.constraints = constraints
        self.institutions = institutions
        self.create: list[Authorship] = []
        self.update: list[Authorship] = []
        self.delete: list[int] = []
        self.links: list[tuple[Authorship, list[int]]] = []
        self.author_ids: set[int] = set()
        self.last_known: dict[int, int] = {}

    def plan(self, item: Item, resolved: dict[tuple[int, int], Resolved]) -> None:
        current = {a.author_id: a for a in self.existing[item.work_id]}
        source = item.record.source
        keep = set()
        for ref in item.record.authors:
            match = resolved.get((item.work_id, ref.position))
            if match is None or match.author.pk in keep:
                continue
            author_id = match.author.pk
            keep.add(author_id)
            authorship = current.get(author_id)
            if authorship is None:
                authorship = NewAuthorship(item.work_id, author_id, source)
                self.create.append(authorship)
            elif authorship.source == source:
                self.update.append(authorship)
            else:
                authorship.confidence = max(authorship.confidence, match.confidence)
                self.update.append(authorship)
                self._remember(item, ref, author_id)
                continue
            authorship.position = ref.position
            authorship.raw_name = (ref.raw_name or ref.name)[:500]
            authorship.raw_affiliation = ref.raw_affiliation
            authorship.is_corresponding = ref.is_corresponding
            authorship.confidence = match.confidence
            self._remember(item, ref, author_id, authorship)
        protected = self.constraints.must.get(item.work_id, set())
        for author_id, authorship in current.items():
            if author_id in keep or author_id in protected:
                continue
            if authorship.source == source or self.constraints.forbids(author_id, item.work_id):
                self.delete.append(authorship.pk)
        self.author_ids |= keep | {a for a in current if a not in keep}

    def _remember(self, item, ref, author_id, authorship=None) -> None:
        ids = [
            self.institutions[key].pk
            for key in map(entities.institution_key, ref.institutions)
            if key in self.institutions
        ]
        if authorship is not None:
            self.links.append((authorship, ids))
        if ids:
            self.last_known.setdefault(author_id, ids[0])

    def commit(self) -> set[int]:
        if self.delete:
            Authorship.objects.filter(pk__in=self.delete).delete()
        self._insert_new()
        fields = ["position", "raw_name", "raw_affiliation", "is_corresponding", "confidence"]
        Authorship.objects.bulk_update(self.update, fields)
        self._write_institution_links()
        self._fill_affiliations()
        return self.author_ids

    def _insert_new(self) -> None:
        """Insert the new authorships and learn their ids (needed for institution links)."""
        if not self.create:
            return
        if on_postgresql():
            ids = allocate_ids(Authorship, len(self.create))
            for authorship, pk in zip(self.create, ids, strict=True):
                authorship.pk = pk
            insert_rows(Authorship, ["id", *NEW_AUTHORSHIP_FIELDS], [a.row() for a in self.create])
            return
        rows = [Authorship(**a.values()) for a in self.create]
        Authorship.objects.bulk_create(rows)
        for authorship, row in zip(self.create, rows, strict=True):
            authorship.pk = row.pk

    def _write_institution_links(self) -> None:
        created = {id(a) for a in self.create}
        existing = [a.pk for a, _ in self.links if id(a) not in created]
        if existing:
            AuthorshipInstitution.objects.filter(authorship_id__in=existing).delete()
        rows = {(a.pk, inst) for a, institutions in self.links for inst in institutions}
        insert_rows(AuthorshipInstitution, ["authorship", "institution"], sorted(rows))

    def _fill_affiliations(self) -> None:
        if not self.last_known:
            return
        insert_rows(
            AuthorInstitution,
            ["author", "institution", "years", "source"],
            [(a, i, [], Source.OPENALEX) for a, i in sorted(self.last_known.items())],
            ignore_conflicts=True,
        )
        blank = Author.objects.filter(
            any_of("pk", self.last_known), last_known_institution__isnull=True
        )
        changed = []
        for author in blank.only("id"):
            author.last_known_institution_id = self.last_known[author.pk]
            changed.append(author)
        if changed:
            Author.objects.bulk_update(changed, ["last_known_institution"])


def _title_key(title: str) -> int:
    """A signed 64-bit key for ``title`` (PostgreSQL's one-key advisory locks)."""
    digest = hashlib.blake2b(title.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _hold_titles(titles: set[str]) -> None:
    """Hold ``titles`` until the batch's transaction ends (PostgreSQL).

    A title is matched only against committed works, so two writers (the parts of
    a run, or two runs) creating works of one title at once would each miss the
    other's and keep two works where one writer merges them. The second writer
    waits here until the first commits, then sees its work. Keys are taken in
    order, so writers never wait on each other in a circle for them; a deadlock
    with other locks is written again whole (``imports._write_batch``).
    """
    if not on_postgresql():
        return
    keys = sorted({_title_key(title) for title in titles})
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_advisory_xact_lock(key)) FROM unnest(%s::bigint[]) AS key", [keys]
        )


def _follow_work_merges(works: list[Work]) -> list[tuple[Work, Work]]:
    target_ids = {w.merged_into_id for w in works if w.merged_into_id}
    targets = Work.objects.in_bulk(target_ids) if target_ids else {}
    return [(w, targets.get(w.merged_into_id, w) if w.merged_into_id else w) for w in works]


def _load_constraints(work_ids: set[int]) -> Constraints:
    if not work_ids:
        return Constraints(set(), defaultdict(set))
    rows = LinkConstraint.objects.filter(
        any_of("work_id", work_ids), author__isnull=False
    ).values_list("kind", "author_id", "work_id")
    cannot, must = set(), defaultdict(set)
    for kind, author_id, work_id in rows:
        if kind == LinkConstraint.Kind.CANNOT_LINK:
            cannot.add((author_id, work_id))
        else:
            must[work_id].add(author_id)
    return Constraints(cannot, must)


ARXIV_REGISTRANT = "10.48550/"  # the DOI prefix of every arXiv DOI


def _conflicting_ids(work: Work, record: WorkRecord) -> bool:
    """Two different DOIs (or OpenAlex ids) mean two different works, whatever the title.

    An arXiv DOI and another are not a conflict: a preprint and its published
    version have one each (and, at OpenAlex, often a record each).
    """
    if record.doi and work.doi and record.doi != work.doi:
        return not (
            record.doi.startswith(ARXIV_REGISTRANT) or work.doi.startswith(ARXIV_REGISTRANT)
        )
    return bool(record.openalex_id and work.openalex_id and record.openalex_id != work.openalex_id)


def _same_work(existing: Work, fresh: Work) -> bool:
    years_close = (
        existing.publication_year is not None
        and fresh.publication_year is not None
        and abs(existing.publication_year - fresh.publication_year) <= 1
    )
    same_first = bool(fresh.first_author_surname) and (
        existing.first_author_surname == fresh.first_author_surname
    )
    return years_close and same_first


def _title_reason(existing: Work, fresh: Work) -> str:
    parts = ["Same title"]
    if existing.publication_year != fresh.publication_year:
        parts.append(f"years {existing.publication_year} and {fresh.publication_year}")
    if existing.first_author_surname != fresh.first_author_surname:
        parts.append("different first authors")
    return ", ".join(parts)


def _pair(candidate: MergeCandidate) -> tuple[str, frozenset]:
    if candidate.kind == MergeCandidate.Kind.WORK:
        return ("work", frozenset((candidate.work_a_id, candidate.work_b_id)))
    return ("author", frozenset((candidate.author_a_id, candidate.author_b_id)))


def _raised_pairs(candidates: list[MergeCandidate]) -> set[tuple[str, frozenset]]:
    """The candidate pairs already raised, in either order and whatever their decision."""
    if not candidates:
        return set()
    ids = {i for c in candidates for i in _pair(c)[1]}
    rows = MergeCandidate.objects.filter(
        Q(work_a_id__in=ids, work_b_id__in=ids) | Q(author_a_id__in=ids, author_b_id__in=ids)
    ).values_list("kind", "work_a_id", "work_b_id", "author_a_id", "author_b_id")
    pairs = set()
    for kind, work_a, work_b, author_a, author_b in rows:
        pair = (work_a, work_b) if kind == MergeCandidate.Kind.WORK else (author_a, author_b)
        pairs.add((kind, frozenset(pair)))
    return pairs


def _kept_apart_pairs(candidates: list[MergeCandidate]) -> set[tuple[str, frozenset]]:
    """The candidate pairs staff already kept apart, in one query for the whole batch."""
    if not candidates:
        return set()
    ids = {i for c in candidates for i in _pair(c)[1]}
    rows = LinkConstraint.objects.filter(kind=LinkConstraint.Kind.CANNOT_LINK).filter(
        Q(work_id__in=ids, other_work_id__in=ids) | Q(author_id__in=ids, other_author_id__in=ids)
    )
    pairs = set()
    for work, other_work, author, other_author in rows.values_list(
        "work_id", "other_work_id", "author_id", "other_author_id"
    ):
        if other_work:
            pairs.add(("work", frozenset((work, other_work))))
        if other_author:
            pairs.add(("author", frozenset((author, other_author))))
    return pairs


def raise_title_candidates_between_parts(run) -> int:
    """Raise the title matches two parts of ``run`` could not see in each other's open batches.

    A work is matched by title only against works already committed, so two works
    with the same title written at the same moment by two processes miss each
    other. Afterwards every such pair among the run's new works that is not told
    apart by its ids becomes a MergeCandidate, as it would have in one process
    (where a pair with the same year and first author would have been merged:
    here staff decide). Returns how many candidates were raised.
    """
    works = Work.objects.filter(
        merged_into__isnull=True,
        source_records__import_run=run,
        created_at__gte=run.started_at or run.created_at,
    ).exclude(normalized_title="")
    # Two works with OpenAlex ids of their own are told apart by them, unless one is
    # known by an arXiv DOI (a preprint's record): every pair that can match has such
    # an "open" work in it.
    open_work = Q(openalex_id__isnull=True) | Q(doi__startswith=ARXIV_REGISTRANT)
    repeated = (
        works.values("normalized_title")
        .annotate(
            n=models.Count("id", distinct=True),
            open=models.Count("id", distinct=True, filter=open_work),
        )
        .filter(n__gt=1, open__gt=0)
        .values("normalized_title")
    )
    groups = defaultdict(list)
    fields = ("normalized_title", "doi", "openalex_id", "publication_year", "first_author_surname")
    for work in works.filter(normalized_title__in=repeated).only(*fields).distinct().order_by("pk"):
        groups[work.normalized_title].append(work)
    candidates = [
        MergeCandidate(kind="work", work_a=a, work_b=b, reason=_title_reason(a, b), score=0.7)
        for group in groups.values()
        for a, b in _pairs_with_an_open_work(group)
        if not _conflicting_ids(a, b)
    ]
    if not candidates:
        return 0
    ids = {w.pk for group in groups.values() for w in group}
    raised = set(
        MergeCandidate.objects.filter(work_a__in=ids, work_b__in=ids).values_list(
            "work_a_id", "work_b_id"
        )
    )
    apart = _kept_apart_pairs(candidates)
    fresh = [
        c
        for c in candidates
        if (c.work_a_id, c.work_b_id) not in raised
        and (c.work_b_id, c.work_a_id) not in raised
        and _pair(c) not in apart
    ]
    MergeCandidate.objects.bulk_create(fresh, ignore_conflicts=True)
    return len(fresh)


def _is_open(work: Work) -> bool:
    """A work whose OpenAlex id (if any) does not rule out a match with another's."""
    return work.openalex_id is None or (work.doi or "").startswith(ARXIV_REGISTRANT)


def _pairs_with_an_open_work(group: list[Work]) -> Iterator[tuple[Work, Work]]:
    """Each pair of ``group`` with an open work in it (``_is_open``), once, the older first."""
    for one in (w for w in group if _is_open(w)):
        for other in group:
            if other is one or (_is_open(other) and other.pk < one.pk):
                continue  # itself, or a pair already given from the other side
            yield (one, other) if one.pk < other.pk else (other, one)


def ingest_works(
    items: list[tuple[dict, WorkRecord]],
    *,
    run=None,
    fetched_at: datetime | None = None,
    ahead: Ahead | None = None,
) -> BatchResult:
    """Write one batch of mapped work records (call inside a transaction).

    ``ahead`` may bring hashes and new works computed beforehand.
    """
    return WorkBatch(items, run=run, fetched_at=fetched_at, ahead=ahead).write()
