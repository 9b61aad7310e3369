"""Mapping payloads to records and writing them, keeping the records that fail aside."""

from __future__ import annotations

import logging

from django.db import transaction

from catalogue.models import ImportRun
from config.contention import again_when_lost, lost_to_another_writer
from ingestion.importing.problems import external_id, problem_for
from ingestion.importing.sending import authors_changed_announce
from ingestion.ingest.author_records import ingest_authors, ingest_institutions
from ingestion.ingest.batch import BatchResult
from ingestion.ingest.conflicts import ConflictingIdentifier
from ingestion.ingest.entities import upsert_topics, upsert_venues
from ingestion.ingest.works import ingest_works
from ingestion.people.resolving import send_blocks
from ingestion.records import MappingError

logger = logging.getLogger("publications")


WORK_ENTITIES = {"work", "arxiv"}


def mapper_for(entity: str):
    from ingestion.sources.arxiv import mapping as arxiv
    from ingestion.sources.openalex import entities, mapping

    return {
        "work": mapping.map_work,
        "arxiv": arxiv.map_entry,
        "author": entities.map_author,
        "institution": entities.map_institution,
        "topic": entities.map_topic,
        "concept": entities.map_topic,
        "venue": entities.map_venue,
    }.get(entity)


def map_all(run: ImportRun, entity: str, payloads: list, pause=None):
    mapper = mapper_for(entity)
    mapped, problems = [], []
    for payload in payloads:
        if pause:
            pause()
        if mapper is None:
            problems.append(
                problem_for(run, payload, f"Records of kind '{entity}' are not imported.")
            )
            continue
        try:
            mapped.append((payload, mapper(payload)))
        except MappingError as exc:
            problems.append(problem_for(run, payload, str(exc)))
        except Exception as exc:  # a payload shaped unlike anything seen: keep it for staff
            logger.exception("Unexpected error mapping a %s record", entity)
            problems.append(problem_for(run, payload, f"Could not read this record: {exc!r}"))
    return mapped, problems


def ingest(run: ImportRun, entity: str, mapped: list, ahead=None) -> BatchResult:
    if entity in WORK_ENTITIES:
        return ingest_works(mapped, run=run, ahead=ahead)
    if entity == "author":
        return ingest_authors(mapped, run=run)
    if entity == "institution":
        return ingest_institutions(mapped)
    result = BatchResult()
    if entity in {"topic", "concept"}:
        result.updated = len(upsert_topics(ref for _, ref in mapped))
    elif entity == "venue":
        result.updated = len(upsert_venues(ref for _, ref in mapped))
    return result


def import_payload(*, run: ImportRun | None, entity: str, payload) -> BatchResult:
    """Map and write one stored payload (a retried ImportProblem); raise when either step fails."""
    mapper = mapper_for(entity)
    if mapper is None:
        raise MappingError(f"Records of kind '{entity}' are not imported.")
    record = mapper(payload)
    with transaction.atomic():
        result = ingest(run, entity, [(payload, record)])
        if result.rejected:
            raise ConflictingIdentifier(result.rejected[0][1])
        if result.author_ids:
            follow_up_queue(sorted(result.author_ids), sorted(result.work_ids), result.name_blocks)
    return result


def ingest_isolating_bad_records(run, entity, mapped, problems, ahead=None) -> BatchResult:
    """Write the batch, keeping aside as problems the records that cannot be written.

    A record whose work would take an identifier another work holds is found
    before the write and not written (``ingest.conflicts``). If the write fails
    all the same (another writer took an identifier meanwhile, or a record fails
    some other way), each half is written again on its own, and so on, until
    each record that fails is alone: a few records' worth of writes for each
    failing record, not one write per record of the batch. A deadlock with
    another writer is no fault of a record: it is raised, for the whole batch
    to be written again.
    """
    try:
        with transaction.atomic():
            result = ingest(run, entity, mapped, ahead)
    except Exception as exc:
        if lost_to_another_writer(exc):
            raise
        if len(mapped) == 1:
            payload = mapped[0][0]
            logger.exception(
                "Record %s of run %s could not be written", external_id(payload), run.pk
            )
            problems.append(problem_for(run, payload, f"Could not be written: {exc}"))
            return BatchResult()
        logger.warning("%s records of run %s failed; writing them in halves", len(mapped), run.pk)
        if ahead is not None:  # e.g. another process stored one of its records meanwhile
            ahead.forget_reads()
        middle = len(mapped) // 2
        result = ingest_isolating_bad_records(run, entity, mapped[:middle], problems, ahead)
        result.add(ingest_isolating_bad_records(run, entity, mapped[middle:], problems, ahead))
        return result
    for payload, reason in result.rejected:
        problems.append(problem_for(run, payload, f"Could not be written: {reason}"))
    result.rejected = []  # now problems: a caller adding this result up keeps them once
    return result


def follow_up_queue(author_ids: list[int], work_ids: list[int], name_blocks=()) -> None:
    """On commit: renew the authors' figures, announce the change, and send the name
    blocks to weigh again (``BatchResult.name_blocks``) to the identity tasks."""
    blocks = sorted(name_blocks)

    def follow_up() -> None:
        authors_changed_announce(author_ids, work_ids)
        if blocks:
            send_blocks(blocks)

    # With tasks run inline, the follow-up writes too, and may meet another writer's
    # locks (a part of the same run): it is done again, never the batch.
    transaction.on_commit(lambda: again_when_lost(follow_up, what="A batch's follow-up"))
