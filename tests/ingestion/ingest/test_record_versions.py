"""An import never replaces a stored record with an older version of it.

Snapshots and saved responses are imported in any order: a record's own
``updated_date`` (arXiv: ``updated``) says which version is the later one.
"""

import pytest

from catalogue.models import Author, SourceRecord, Work
from tests.ingestion.sources.facts import openalex_page, openalex_work, run_file

pytestmark = pytest.mark.django_db

NEWER, OLDER, NEWEST = "2025-11-06T05:12:00.123456", "2025-06-11", "2025-12-01T00:00:00"


def work_version(updated, cited_by, kind="article", **fields):
    return openalex_work(
        2741809807,
        "Open access at scale",
        updated_date=updated,
        cited_by_count=cited_by,
        type=kind,
        **fields,
    )


def test_an_older_work_record_imported_after_a_newer_one_changes_nothing(tmp_path):
    run_file(tmp_path, openalex_page(work_version(NEWER, 1109, "book-chapter")))

    run = run_file(tmp_path, openalex_page(work_version(OLDER, 962)))

    work = Work.objects.get(openalex_id="W2741809807")
    assert (work.cited_by_count, work.type) == (1109, "book-chapter")
    assert (run.counters["created"], run.counters["updated"], run.counters["unchanged"]) == (
        0,
        0,
        1,
    )
    stored = SourceRecord.objects.get(external_id="W2741809807")
    assert stored.payload["cited_by_count"] == 1109
    assert stored.source_updated_at.isoformat().startswith("2025-11-06T05:12:00")


def test_a_newer_work_record_still_replaces_the_stored_one(tmp_path):
    run_file(tmp_path, openalex_page(work_version(OLDER, 962)))
    run_file(tmp_path, openalex_page(work_version(NEWER, 1109, "book-chapter")))

    run = run_file(tmp_path, openalex_page(work_version(NEWEST, 1200, "book-chapter")))

    assert Work.objects.get(openalex_id="W2741809807").cited_by_count == 1200
    assert run.counters["updated"] == 1


def test_a_record_that_does_not_say_when_it_changed_is_taken(tmp_path):
    run_file(tmp_path, openalex_page(work_version(NEWER, 1109)))

    undated = work_version(NEWER, 1300)
    del undated["updated_date"]
    run_file(tmp_path, openalex_page(undated))

    assert Work.objects.get(openalex_id="W2741809807").cited_by_count == 1300


def author_version(updated, cited_by, name):
    return {
        "id": "https://openalex.org/A5023888391",
        "display_name": name,
        "works_count": 80,
        "cited_by_count": cited_by,
        "updated_date": updated,
    }


def test_an_older_author_record_imported_after_a_newer_one_changes_nothing(tmp_path):
    run_file(tmp_path, openalex_page(author_version(NEWER, 1514, "Heather A. Piwowar")))

    run = run_file(tmp_path, openalex_page(author_version(OLDER, 1367, "Heather Piwowar")))

    author = Author.objects.get(openalex_id="A5023888391")
    assert author.display_name == "Heather A. Piwowar"
    assert (run.counters["unchanged"], run.counters["updated"]) == (1, 0)
    stored = SourceRecord.objects.get(external_id="A5023888391")
    assert stored.payload["cited_by_count"] == 1514

    run_file(tmp_path, openalex_page(author_version(NEWEST, 1600, "Heather A. Piwowar")))
    assert SourceRecord.objects.get(external_id="A5023888391").payload["cited_by_count"] == 1600
