"""The parts of a run as Celery tasks: a group whose callback ends the run.

Tasks run inline here (no broker): the group's parts run one after the other,
then its callback. With a broker the same group goes to whichever workers take
its parts (``test_worker_killed.py`` kills one of them mid-part).
"""

import pytest
from django.db import connection

from catalogue.models import ImportRun, SourceRecord, Work
from devtools.corpus import write_corpus
from ingestion import tasks
from ingestion.importing import fanout
from ingestion.importing.dispatch import import_run_create

WORKS = 300
pytestmark = pytest.mark.usefixtures("follow_ups_unheard")


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "works.jsonl"
    write_corpus(path, WORKS, seed=7)
    return path


def running_run(path) -> ImportRun:
    run = import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(path)]}, queue=False
    )
    run.status = ImportRun.Status.RUNNING
    run.save(update_fields=["status"])
    return run


def written() -> set:
    return set(Work.objects.values_list("openalex_id", "title", "publication_year"))


@pytest.mark.django_db(transaction=True)
def test_parts_sent_as_a_group_land_as_one_writer_writes_them(corpus, settings):
    settings.IMPORT_PARTS, settings.IMPORT_BATCH_SIZE = 1, 50
    whole = tasks.import_run.apply(args=[running_run(corpus).pk])
    assert whole.successful()
    expected = written()
    Work.objects.all().delete()
    SourceRecord.objects.all().delete()

    run = running_run(corpus)
    tasks.import_run_parts_send(run.pk, 3)

    run.refresh_from_db()
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert run.processed == WORKS
    assert len(run.cursor["parts"]) == 3
    assert written() == expected
    assert run.counters["created"] == WORKS


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="parts need PostgreSQL")
def test_a_large_snapshot_queued_to_a_worker_is_written_as_part_tasks(corpus, settings):
    settings.IMPORT_PARTS, settings.IMPORT_PARTS_MIN_BYTES, settings.IMPORT_BATCH_SIZE = 2, 0, 50
    run = import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(corpus)]}, queue=False
    )
    tasks.import_run.apply(args=[run.pk])
    run.refresh_from_db()
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert (run.processed, len(run.cursor["parts"])) == (WORKS, 2)


@pytest.mark.django_db
def test_a_part_of_a_failed_run_writes_nothing(corpus):
    run = running_run(corpus)
    ImportRun.objects.filter(pk=run.pk).update(status=ImportRun.Status.FAILED)
    assert fanout.import_run_part_execute(run_id=run.pk, index=0, count=2) == fanout.STOPPED
    assert not Work.objects.exists()


@pytest.mark.django_db
def test_a_part_stops_at_its_next_batch_once_another_part_failed(corpus, settings):
    settings.IMPORT_BATCH_SIZE = 100
    run = running_run(corpus)
    failed = []

    def another_part_fails_with_the_first_batch(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if (
            not failed
            and sql.startswith('UPDATE "publications_importrun"')
            and '"processed"' in sql
        ):
            failed.append(True)  # as another part would, while this batch is written
            ImportRun.objects.filter(pk=run.pk).update(status=ImportRun.Status.FAILED)
        return result

    with connection.execute_wrapper(another_part_fails_with_the_first_batch):
        outcome = fanout.import_run_part_execute(run_id=run.pk, index=0, count=1)
    run.refresh_from_db()
    assert outcome == fanout.STOPPED
    assert run.processed == 100  # the first batch, saved with its position; nothing after it


@pytest.mark.django_db
def test_the_callback_ends_the_run_only_when_every_part_was_written(corpus):
    run = running_run(corpus)
    fanout.import_run_parts_end(run_id=run.pk, outcomes=[fanout.DONE, fanout.STOPPED])
    run.refresh_from_db()
    assert run.status == ImportRun.Status.RUNNING  # a part was stopped: not finished

    fanout.import_run_parts_end(run_id=run.pk, outcomes=[fanout.DONE, fanout.DONE])
    run.refresh_from_db()
    assert run.status == ImportRun.Status.SUCCEEDED
    assert run.finished_at is not None


@pytest.mark.django_db
def test_a_late_callback_leaves_an_ended_run_as_it_is(corpus):
    run = running_run(corpus)
    ImportRun.objects.filter(pk=run.pk).update(status=ImportRun.Status.CANCELLED)
    fanout.import_run_parts_end(run_id=run.pk, outcomes=[fanout.DONE, fanout.DONE])
    run.refresh_from_db()
    assert run.status == ImportRun.Status.CANCELLED
