"""Writing a batch of work records: source records, works, authorships, topics, grants.

Everything is done per batch in bulk, so the number of queries does not grow
with the batch size. The caller owns the transaction (one per batch).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from catalogue.models import (
    Authorship,
    Grant,
    MergeCandidate,
    Source,
    SourceRecord,
    Work,
    WorkTopic,
)
from ingestion.ingest import entities
from ingestion.ingest.authorships import AuthorshipWriter, load_constraints, write_unlinked
from ingestion.ingest.batch import BatchResult, IncomingWork, Precomputed
from ingestion.ingest.bylines import AuthorResolver, Item
from ingestion.ingest.citations import write_citations
from ingestion.ingest.conflicts import holders_of, record_keys, sort_out, work_keys
from ingestion.ingest.hashing import content_hash
from ingestion.ingest.lookups import is_older, same_values, stored_records
from ingestion.ingest.merge import UPDATE_FIELDS, apply_record, apply_venue, record_version
from ingestion.ingest.payloads import stored_payload
from ingestion.ingest.rows import (
    JsonText,
    any_of,
    insert_objects,
    insert_rows,
    on_postgresql,
    present_in,
)
from ingestion.ingest.title_matches import (
    candidate_pair,
    conflicting_ids,
    hold_titles,
    kept_apart_pairs,
    raised_pairs,
    same_work,
    title_reason,
)
from ingestion.ingest.versions import decide_leads
from ingestion.people.blocks import reconsider
from ingestion.people.folding import fold_records
from ingestion.records import WorkRecord


class WorkBatch:
    """One batch of work records from one source."""

    def __init__(
        self, items: list[tuple[dict, WorkRecord]], *, run=None, fetched_at=None, ahead=None
    ):
        self.run = run
        self.fetched_at = fetched_at or timezone.now()
        self.ahead = ahead or Precomputed()
        self.result = BatchResult()
        self.items = self._dedupe(items)
        self.merge_candidates: list[MergeCandidate] = []
        self.holders: dict[str, int] = {}  # identifier -> the stored work holding it

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
            self.result.rejected += [(p.payload, p.rejected) for p in pending if p.rejected]
            pending = [p for p in pending if not (p.deferred or p.rejected)]
            existing = self._existing_authorships(pending)
            decide_leads(pending, existing)
            self._update_works([p for p in pending if not p.is_new])
            self._write_authorships(pending, existing)
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

    def _changed_only(self) -> list[IncomingWork]:
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
            if row and row.work_id and is_older(record.updated_at, found.updated_at):
                # An older version of a record held (an earlier snapshot imported
                # again): what the newer one said stays, nothing changes.
                self.result.unchanged += 1
                continue
            text = JsonText(known.text) if known else None
            line = self.ahead.lines.get(id(payload), "")
            pending.append(IncomingWork(payload, record, digest, row, text, line_digest=line))
        return pending

    # Finding the work each record describes ------------------------------------

    def _find_works(self, pending: list[IncomingWork]) -> None:
        by_key = self._works_by_key(pending)
        linked = self._works_by_source_record(pending)
        in_batch: dict[str, IncomingWork] = {}
        for item in pending:
            item.deferred, item.rejected = False, ""
            work = linked.get(item.source_record.pk) if item.source_record else None
            keys = record_keys(item.record)
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
        sort_out(pending, self.holders)  # before anything is written for them

    def _works_by_key(self, pending: list[IncomingWork]) -> dict[str, Work]:
        dois = {p.record.doi for p in pending if p.record.doi}
        arxiv_ids = {p.record.arxiv_id for p in pending if p.record.arxiv_id}
        openalex_ids = {p.record.openalex_id for p in pending if p.record.openalex_id}
        self.holders = {}
        if not (dois or arxiv_ids or openalex_ids):
            return {}
        query = (
            present_in("doi", dois)
            | present_in("arxiv_id", arxiv_ids)
            | present_in("openalex_id", openalex_ids)
        )
        works = list(Work.objects.filter(query).order_by())
        self.holders = holders_of(works)
        works = _follow_work_merges(works)
        by_key = {}
        for original, target in works:
            for key in work_keys(original):
                by_key[key] = target
        return by_key

    @staticmethod
    def _works_by_source_record(pending: list[IncomingWork]) -> dict[int, Work]:
        ids = {p.source_record.work_id: p.source_record.pk for p in pending if p.source_record}
        ids.pop(None, None)
        if not ids:
            return {}
        works = _follow_work_merges(list(Work.objects.filter(any_of("pk", ids))))
        return {ids[original.pk]: target for original, target in works}

    def _match_titles(self, fresh: list[IncomingWork]) -> None:
        """Merge a new record into a work with the same title, year and first author.

        Stored works are matched first, then the new works of earlier records of
        this batch, so where a batch ends makes no difference.
        """
        titles = {p.work.normalized_title for p in fresh if p.work.normalized_title}
        if not titles:
            return
        hold_titles(titles)
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
                if conflicting_ids(work, item.record):
                    continue
                if same_work(work, item.work) and id(work) in drafts:
                    item.work, item.is_new, item.deferred = None, False, True
                    break
                if same_work(work, item.work):
                    apply_record(work, item.record)
                    item.work, item.is_new = work, False
                    break
                self.merge_candidates.append(
                    MergeCandidate(
                        kind="work", work_a=work, reason=title_reason(work, item.work), score=0.7
                    )
                )
                self.merge_candidates[-1].pending_b = item  # the new work gets its id later
            if item.is_new and title:
                candidates[title].append(item.work)
                drafts.add(id(item.work))

    # Writing works -------------------------------------------------------------

    def _create_works(self, pending: list[IncomingWork]) -> None:
        fresh = list({id(p.work): p.work for p in pending if p.is_new}.values())
        if not fresh:
            return
        decide_leads(pending, {})
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
            decide_leads(pending, {})
            insert_objects(fresh)
        self.result.created += len(fresh)
        for work in fresh:
            self.result.work_ids.add(work.pk)

    def _update_works(self, pending: list[IncomingWork]) -> None:
        works = {}
        for item in pending:
            apply_record(item.work, item.record)
            works[item.work.pk] = item.work
        if works:
            Work.objects.bulk_update(list(works.values()), UPDATE_FIELDS)
        self.result.updated += len(works)
        self.result.work_ids.update(works)

    def _assign_venues(self, pending: list[IncomingWork]) -> None:
        """Venues are set before works are written, so a new work is inserted complete."""
        venues = entities.upsert_venues(p.record.venue for p in pending if p.record.venue)
        for item in pending:
            if item.work is None:
                continue
            venue = venues.get(entities.venue_key(item.record.venue)) if item.record.venue else None
            if venue:
                apply_venue(item.work, venue.pk, item.record.source, record_version(item.record))

    # Authorships ---------------------------------------------------------------

    @staticmethod
    def _existing_authorships(pending: list[IncomingWork]) -> dict[int, list[Authorship]]:
        # A work created by this batch has no authorships or link decisions yet.
        known_ids = {p.work.pk for p in pending if not p.is_new}
        existing = defaultdict(list)
        if known_ids:
            rows = Authorship.objects.filter(any_of("work_id", known_ids)).select_related("author")
            for authorship in rows:
                existing[authorship.work_id].append(authorship)
        return existing

    def _write_authorships(self, pending: list[IncomingWork], existing) -> None:
        known_ids = {p.work.pk for p in pending if not p.is_new}
        constraints = load_constraints(known_ids)
        institutions = entities.upsert_institutions(
            i for p in pending for a in p.record.authors for i in a.institutions
        )
        resolver = AuthorResolver(constraints, institutions)
        items = [
            Item(p.work.pk, p.record, existing[p.work.pk], p.leads, p.lead_source) for p in pending
        ]
        resolver.follow([item for item in items if not item.leads])
        resolved = resolver.resolve([item for item in items if item.leads])
        self.merge_candidates.extend(resolver.merge_candidates)
        writer = AuthorshipWriter(existing, constraints, institutions)
        for item in items:
            writer.plan(item, resolved)
        self.result.author_ids |= writer.commit()
        self.result.author_ids |= fold_records(resolver.absorbed)
        self.result.author_ids |= reconsider(resolver.placed_blocks(items))
        self.result.name_blocks |= resolver.shared_blocks()
        write_unlinked(pending, resolver.unlinked)

    # Topics and grants ---------------------------------------------------------

    def _write_topics(self, pending: list[IncomingWork]) -> None:
        topics = entities.upsert_topics(t for p in pending for t in p.record.topics)
        by_source = defaultdict(set)
        rows = {}
        # A record whose source also gave the leading record of its work leaves the topics.
        pending = [p for p in pending if p.leads or p.record.source != p.lead_source]
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

    def _write_grants(self, pending: list[IncomingWork]) -> None:
        with_grants = [p for p in pending if p.record.source == Source.OPENALEX and p.leads]
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

    def _write_source_records(self, pending: list[IncomingWork]) -> None:
        new, changed = [], []
        now, run_id = self.fetched_at, self.run.pk if self.run else None
        for item in pending:
            row = item.source_record
            payload, text = stored_payload(item.payload, item.text)
            if row is None:
                new.append(
                    (
                        item.record.source,
                        SourceRecord.Entity.WORK,
                        item.record.external_id[:255],
                        text,
                        item.digest,
                        now,
                        now,
                        item.work.pk,
                        run_id,
                        item.line_digest,
                        item.record.updated_at,
                    )
                )
                continue
            row.payload = payload
            row.content_hash = item.digest
            row.line_digest = item.line_digest  # "" when it came another way: never skipped
            row.fetched_at = now
            row.source_updated_at = item.record.updated_at
            row.work_id = item.work.pk
            row.import_run_id = run_id
            changed.append(row)
        insert_rows(SourceRecord, SOURCE_RECORD_FIELDS, new)
        SourceRecord.objects.bulk_update(
            changed,
            [
                "payload",
                "content_hash",
                "line_digest",
                "fetched_at",
                "source_updated_at",
                "work",
                "import_run",
            ],
        )

    def _write_citations(self, pending: list[IncomingWork]) -> None:
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
            if item is not None and (item.deferred or item.rejected):
                continue  # raised again when that record is written, if it is
            if item is not None:
                candidate.work_b = item.work
            if candidate.kind == MergeCandidate.Kind.WORK:
                candidate.work_a = candidate.work_a  # a work new in this batch has its id now
                if candidate.work_a_id is None:
                    continue  # a deferred record's new work: raised when that record is written
            if candidate.work_a_id and candidate.work_a_id == candidate.work_b_id:
                continue
            rows.append(candidate)
        apart = kept_apart_pairs(rows) | raised_pairs(rows)
        fresh = {}
        for candidate in rows:
            if candidate_pair(candidate) not in apart:
                fresh.setdefault(candidate_pair(candidate), candidate)
        MergeCandidate.objects.bulk_create(list(fresh.values()), ignore_conflicts=True)


SOURCE_RECORD_FIELDS = [
    "source",
    "entity",
    "external_id",
    "payload",
    "content_hash",
    "fetched_at",
    "first_seen_at",
    "work",
    "import_run",
    "line_digest",
    "source_updated_at",
]


def _follow_work_merges(works: list[Work]) -> list[tuple[Work, Work]]:
    target_ids = {w.merged_into_id for w in works if w.merged_into_id}
    targets = Work.objects.in_bulk(target_ids) if target_ids else {}
    return [(w, targets.get(w.merged_into_id, w) if w.merged_into_id else w) for w in works]


def ingest_works(
    items: list[tuple[dict, WorkRecord]],
    *,
    run=None,
    fetched_at: datetime | None = None,
    ahead: Precomputed | None = None,
) -> BatchResult:
    """Write one batch of mapped work records (call inside a transaction).

    ``ahead`` may bring hashes and new works computed beforehand.
    """
    return WorkBatch(items, run=run, fetched_at=fetched_at, ahead=ahead).write()
