"""Re-resolving at scale: the task per name block, the command, and imports that ask for it."""

from io import StringIO

import pytest
from celery import current_app
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from catalogue.models import Author, MergeCandidate, SplitProposal
from identity.names import block_key
from ingestion.importing import ingesting
from ingestion.ingest.works import ingest_works
from ingestion.people.resolving import TASK, resolve_blocks, send_blocks
from ingestion.sources.openalex import mapping as openalex
from tests.ingestion.people.builders import circle, person, two_people_record, work_by

pytestmark = pytest.mark.django_db

MARIA = ("A5100000001", "Maria Quintero")
M_QUINTERO = ("A5100000002", "M. Quintero")
HENRIK = ("A5100000003", "Henrik Ostberg")
LUCIA = ("A5100000004", "Lucia Ferraz")


def openalex_work(number: int, title: str, authors) -> dict:
    return {
        "id": f"https://openalex.org/W81000000{number:02d}",
        "title": title,
        "publication_year": 2021,
        "type": "article",
        "authorships": [
            {
                "author": {"id": f"https://openalex.org/{aid}", "display_name": name},
                "raw_author_name": name,
            }
            for aid, name in authors
        ],
    }


def ingest(*payloads):
    """Write the payloads as one batch, the way one page of an import is written."""
    with transaction.atomic():
        return ingest_works([(p, openalex.map_work(p)) for p in payloads])


@pytest.fixture
def sent(monkeypatch):
    """The blocks sent to the resolve task, each task's list; the tasks still run (eagerly)."""
    task = current_app.tasks[TASK]
    calls, run = [], task.delay

    def delay(keys):
        calls.append(list(keys))
        return run(keys)

    monkeypatch.setattr(task, "delay", delay)
    return calls


@pytest.fixture
def blocks():
    """A provisional record with the evidence of an identified one, and two ids of one person."""
    colleagues = circle(["Henrik Ostberg", "Lucia Ferraz"])
    maria, loose = person("Maria Quintero"), person("M. Quintero", openalex=False)
    tomas, other = person("Tomas Lindgren"), person("T. Lindgren")
    for n, (left, right) in enumerate([(maria, loose), (tomas, other)]):
        for m, record in enumerate([left, left, right, right]):
            work_by([record, *colleagues], f"Meltwater routing study {n} {m}", year=2015 + m)
    return maria, loose, tomas, other


# Imports ask for the blocks where a new record with an id meets another -------------------


def test_a_batch_names_the_blocks_where_its_new_record_meets_another():
    first = ingest(openalex_work(1, "Meltwater routing", [MARIA, HENRIK]))
    assert first.name_blocks == set()  # each block holds one record
    second = ingest(openalex_work(2, "Basal sliding", [M_QUINTERO, HENRIK]))
    assert second.name_blocks == {block_key("Maria Quintero")}
    third = ingest(openalex_work(3, "Calving fronts", [M_QUINTERO, LUCIA]))
    assert third.name_blocks == set()  # no new record beside another: nothing to weigh again


def test_finding_those_blocks_costs_one_query_however_many_records_are_new():
    ingest(openalex_work(1, "Meltwater routing", [MARIA, HENRIK]))
    newcomers = [(f"A51000001{n:02d}", f"Person{n} Example{n}") for n in range(6)]
    with CaptureQueriesContext(connection) as seen:
        result = ingest(openalex_work(2, "Basal sliding", [M_QUINTERO, LUCIA, *newcomers]))
    grouped = [q["sql"] for q in seen.captured_queries if "GROUP BY" in q["sql"]]
    assert len([sql for sql in grouped if "name_block" in sql]) == 1
    assert result.name_blocks == {block_key("Maria Quintero")}


def test_the_blocks_are_sent_to_the_resolve_task_after_the_commit(
    sent, django_capture_on_commit_callbacks
):
    ingesting.import_payload(
        run=None, entity="work", payload=openalex_work(1, "Meltwater routing", [MARIA, HENRIK])
    )
    with django_capture_on_commit_callbacks(execute=True):
        ingesting.import_payload(
            run=None, entity="work", payload=openalex_work(2, "Basal sliding", [M_QUINTERO, HENRIK])
        )
    assert sent == [[block_key("Maria Quintero")]]
    # The task ran (eagerly here): the two ids share a co-author, so they are raised.
    candidate = MergeCandidate.objects.get(kind=MergeCandidate.Kind.AUTHOR)
    ids = set(
        Author.objects.filter(openalex_id__in=[MARIA[0], M_QUINTERO[0]]).values_list(
            "pk", flat=True
        )
    )
    assert {candidate.author_a_id, candidate.author_b_id} == ids
    assert "shared co-author" in candidate.reason


# The task, and the fan-out ------------------------------------------------------------------


def test_the_task_resolves_its_blocks_and_says_what_it_did(blocks):
    maria, loose, tomas, other = blocks
    outcome = current_app.tasks[TASK].delay([maria.name_block, tomas.name_block]).get()
    assert outcome == {"blocks": 2, "folded": 2, "candidates": 1, "splits": 0}
    loose.refresh_from_db()
    assert loose.merged_into_id == maria.pk
    assert MergeCandidate.objects.filter(author_a_id__in=[tomas.pk, other.pk]).count() == 1


def test_blocks_are_sent_a_few_to_a_task(monkeypatch):
    sent = []
    monkeypatch.setattr(current_app.tasks[TASK], "delay", lambda keys: sent.append(list(keys)))
    keys = [f"block{n:02d}_a" for n in range(45)]
    assert send_blocks(keys) == 3
    assert [len(chunk) for chunk in sent] == [20, 20, 5]
    assert [key for chunk in sent for key in chunk] == keys


def test_each_block_is_resolved_in_its_own_transaction(blocks, monkeypatch):
    maria, loose, tomas, other = blocks
    from ingestion.people import resolving

    real = resolving.resolve_block

    def failing(key):
        if key == tomas.name_block:
            raise RuntimeError("worker lost")
        return real(key)

    monkeypatch.setattr(resolving, "resolve_block", failing)
    with pytest.raises(RuntimeError):
        resolve_blocks([maria.name_block, tomas.name_block])
    loose.refresh_from_db()
    assert loose.merged_into_id == maria.pk  # the first block's work was kept


# The command ----------------------------------------------------------------------------------


def command(*args) -> str:
    out = StringIO()
    call_command("resolve_identities", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_the_command_resolves_every_block(blocks):
    maria, loose, tomas, other = blocks
    daniel = two_people_record()[0]
    said = command()
    assert "2 records folded, 1 merge candidates raised, 1 split proposals made." in said
    loose.refresh_from_db()
    assert loose.merged_into_id == maria.pk
    assert MergeCandidate.objects.filter(author_a_id__in=[tomas.pk, other.pk]).exists()
    assert SplitProposal.objects.filter(author=daniel, status="open").exists()


def test_the_command_resolves_only_the_blocks_asked_for(blocks):
    maria, loose, tomas, other = blocks
    said = command("--block", tomas.name_block)
    assert said.startswith("1 blocks: 0 records folded, 1 merge candidates raised")
    loose.refresh_from_db()
    assert loose.merged_into_id is None


def test_the_command_can_send_the_blocks_to_the_workers(blocks, sent):
    maria, loose, tomas, other = blocks
    said = command("--queue")
    keys = [key for chunk in sent for key in chunk]
    assert maria.name_block in keys and tomas.name_block in keys
    assert len(keys) == len(set(keys))
    assert said.strip() == f"{len(keys)} blocks sent in {len(sent)} tasks."
    loose.refresh_from_db()
    assert loose.merged_into_id == maria.pk  # eager here: the tasks ran inline


def test_the_command_can_recompute_the_name_blocks_first(blocks):
    maria = blocks[0]
    Author.objects.filter(pk=maria.pk).update(name_block="stale_x")
    said = command("--rekey", "--block", block_key("Maria Quintero"))
    assert said.startswith("Name blocks recomputed for 1 records.")
    maria.refresh_from_db()
    assert maria.name_block == block_key("Maria Quintero")
