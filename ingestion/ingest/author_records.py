"""Writing author entities (an OpenAlex author record) and institution entities."""

from __future__ import annotations

from datetime import datetime

from django.db.models import F
from django.utils import timezone

from catalogue.identifiers import normalize_name
from catalogue.models import Author, AuthorInstitution, Authorship, SourceRecord
from identity.names import block_key
from ingestion.ingest import entities
from ingestion.ingest.batch import BatchResult
from ingestion.ingest.hashing import content_hash
from ingestion.ingest.lookups import is_older
from ingestion.ingest.payloads import stored_payload
from ingestion.ingest.rows import any_of, present_in
from ingestion.records import AuthorRecord, InstitutionRef

AUTHOR_FIELDS = [
    "display_name",
    "normalized_name",
    "name_block",
    "alternative_names",
    "orcid",
    "is_deleted",
]
YEARS_KEPT = 200  # yearly counts kept of a record (sources give about the last ten years)


def _existing_authors(records: list[AuthorRecord]) -> dict[str, Author]:
    ids = {r.openalex_id for r in records if r.openalex_id}
    orcids = {r.orcid for r in records if r.orcid}
    found = {}
    for author in Author.objects.filter(present_in("openalex_id", ids)):
        found[author.openalex_id] = author
    for author in Author.objects.filter(present_in("orcid", orcids)):
        found.setdefault(f"orcid:{author.orcid}", author)
    return found


def _apply(author: Author, record: AuthorRecord, orcid_free: bool) -> None:
    if not author.display_name or not record.is_deleted:
        author.display_name = record.display_name[:300]
        author.normalized_name = normalize_name(record.display_name)[:300]
        author.name_block = block_key(author.display_name)[:120]
    author.alternative_names = record.alternative_names[:50]
    if record.openalex_id and not author.openalex_id:
        author.openalex_id = record.openalex_id
    if record.orcid and not author.orcid and orcid_free:
        author.orcid = record.orcid
    author.is_deleted = record.is_deleted
    _apply_counts(author, record)


def _apply_counts(author: Author, record: AuthorRecord) -> None:
    """The source's own counts for the whole record, dated with the record's updated date."""
    author.counts_source = record.source
    author.counts_as_of = record.updated_at
    author.source_works_count = record.works_count
    author.source_cited_by_count = record.cited_by_count
    author.source_h_index = record.h_index
    author.source_i10_index = record.i10_index
    author.source_mean_citedness = record.mean_citedness
    author.source_topics_count = len(record.topics) if record.topics else None
    author.source_counts_by_year = record.counts_by_year[:YEARS_KEPT]


def ingest_authors(
    items: list[tuple[dict, AuthorRecord]], *, run=None, fetched_at: datetime | None = None
) -> BatchResult:
    """Write one batch of mapped author records (call inside a transaction)."""
    result = BatchResult()
    fetched_at = fetched_at or timezone.now()
    changed = _changed_only(items, result)
    if not changed:
        return result
    records = [record for _, record, _, _ in changed]
    found = _existing_authors(records)
    orcids = {r.orcid for r in records if r.orcid}
    taken = set(Author.objects.filter(present_in("orcid", orcids)).values_list("orcid", flat=True))
    institutions = entities.upsert_institutions(
        [i for r in records for i in r.last_known_institutions]
        + [a.institution for r in records for a in r.affiliations]
    )
    flipped = []  # authors marked deleted, or no longer: their works changed authors
    for payload, record, digest, row in changed:
        author, created, deleted_changed = _author_save(
            record, found, orcid_free=record.orcid not in taken, institutions=institutions
        )
        if deleted_changed:
            flipped.append(author.pk)
        result.created += created
        result.updated += not created
        result.author_ids.add(author.pk)
        row = row or SourceRecord(
            source=record.source, entity=SourceRecord.Entity.AUTHOR, external_id=record.external_id
        )
        row.payload, _ = stored_payload(payload)
        row.content_hash, row.fetched_at = digest, fetched_at
        row.source_updated_at = record.updated_at
        row.author, row.import_run = author, run
        row.save()
    if flipped:
        works = Authorship.objects.filter(author_id__in=flipped).values_list("work_id", flat=True)
        result.work_ids.update(works)
    return result


def _changed_only(items: list[tuple[dict, AuthorRecord]], result: BatchResult) -> list[tuple]:
    """(payload, record, hash, stored row) of the items not stored as they are; counts the rest."""
    sources = {(r.source, r.external_id): (p, r) for p, r in items}
    rows = {
        (row.source, row.external_id): row
        for row in SourceRecord.objects.filter(
            any_of("external_id", [key[1] for key in sources]),
            entity=SourceRecord.Entity.AUTHOR,
        ).annotate(counted=F("author__counts_source"))
    }
    changed = []
    for key, (payload, record) in sources.items():
        row = rows.get(key)
        digest = content_hash(payload)
        # A record stored before its counts were kept is written again to keep them.
        if row and row.content_hash == digest and row.author_id and row.counted:
            result.unchanged += 1
        elif row and row.author_id and is_older(record.updated_at, row.source_updated_at):
            result.unchanged += 1  # an older version of the record held: the newer stays
        else:
            changed.append((payload, record, digest, row))
    return changed


def _author_save(
    record: AuthorRecord, found: dict, *, orcid_free: bool, institutions
) -> tuple[Author, bool, bool]:
    """Create or update the author of ``record``: (author, created, deleted flag changed)."""
    author = found.get(record.openalex_id or "") or found.get(f"orcid:{record.orcid}")
    created = author is None
    author = author or Author()
    if author.merged_into_id:
        author = Author.objects.get(pk=author.merged_into_id)
    was_deleted = author.is_deleted
    _apply(author, record, orcid_free=orcid_free)
    deleted_changed = bool(author.pk) and author.is_deleted != was_deleted
    author.save()
    _write_affiliations(author, record, institutions)
    return author, created, deleted_changed


def _write_affiliations(author: Author, record: AuthorRecord, institutions) -> None:
    def lookup(ref: InstitutionRef):
        return institutions.get(entities.institution_key(ref))

    current = next(filter(None, map(lookup, record.last_known_institutions)), None)
    if current and author.last_known_institution_id != current.pk:
        author.last_known_institution = current
        author.save(update_fields=["last_known_institution"])
    listed = set()
    for affiliation in record.affiliations:
        institution = lookup(affiliation.institution)
        if institution:
            listed.add(institution.pk)
            AuthorInstitution.objects.update_or_create(
                author=author,
                institution=institution,
                defaults={
                    "years": sorted(set(affiliation.years), reverse=True),
                    "in_author_record": True,
                },
            )
    if current:
        listed.add(current.pk)
        AuthorInstitution.objects.update_or_create(
            author=author, institution=current, defaults={"in_author_record": True}
        )
    # What the record no longer lists stays (bylines may show it) but is not the record's.
    stale = AuthorInstitution.objects.filter(author=author, in_author_record=True)
    stale.exclude(institution_id__in=listed).update(in_author_record=False)


def ingest_institutions(items: list[tuple[dict, InstitutionRef]]) -> BatchResult:
    """Institution entities bring what authorships lack: the homepage, for email claims."""
    result = BatchResult()
    found = entities.upsert_institutions(ref for _, ref in items)
    result.updated = len(found)
    return result
