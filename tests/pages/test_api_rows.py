"""The API's work lists and work detail, read as values and written field by field,
answer what the serializers the schema documents write for the same works."""

import json
from datetime import UTC, date, datetime

import pytest
from django.utils import timezone

from catalogue import selectors
from catalogue.models import (
    Citation,
    Funder,
    Grant,
    Source,
    SourceRecord,
    Topic,
    UnlinkedAuthorship,
    Work,
    WorkTopic,
)
from pages.api import works as api
from pages.api.work_detail import detail
from pages.api.work_rows import page, rows
from tests.factories import AuthorFactory, AuthorshipFactory, VenueFactory, WorkFactory

pytestmark = pytest.mark.django_db

NAMES = 3  # names a work gives here: the long bylines below run past it


def plain(data) -> object:
    """What a client reads of an answer: JSON, keys in their order."""
    return json.loads(json.dumps(data))


FULL = {
    "title": "Über-long analysis: of everything!",
    "publication_date": date(2021, 5, 17),
    "publication_year": 2021,
    "doi": "10.1000/full",
    "arxiv_id": "2105.00001",
    "openalex_id": "W1",
    "journal_ref": "J. Ex. 1 (2021)",
    "arxiv_primary_category": "cs.DC",
    "abstract": "An abstract.",
    "comments": "12 pages",
    "code_url": "https://github.com/example/full",
    "pdf_url": "javascript:alert(1)",  # not an address a page may link: null
    "landing_url": "https://example.org/full",
    "oa_url": "https://example.org/full.pdf",
    "license": "cc-by",
    "volume": "3",
    "issue": "2",
    "first_page": "10",
    "last_page": "20",
    "is_open_access": True,
    "oa_status": "gold",
    "is_retracted": True,
    "embargo_until": date(2030, 1, 1),
    "cited_by_count": 5,
    "counts_by_year": [{"year": 2022, "cited_by_count": 5}],
    "language": "en",
    "source_created_date": date(2021, 5, 1),
    "source_updated_at": datetime(2024, 2, 3, 4, 5, 6, tzinfo=UTC),
    "provenance": {"cited_by_count": "openalex", "source_updated_at": "openalex"},
}


def full_work(author) -> Work:
    """A work with every field set, names held and not, topics, grants and a reference."""
    work = WorkFactory(venue=VenueFactory(name="Journal of Examples"), **FULL)
    AuthorshipFactory(work=work, author=author, position=0, confidence=0.5, raw_name="")
    AuthorshipFactory(work=work, author=AuthorFactory(display_name=""), position=2)
    for position, name, source in [(1, "Not Held", "arxiv"), (1, "Again", "openalex")]:
        UnlinkedAuthorship.objects.create(
            work=work, position=position, raw_name=name, source=source
        )
    UnlinkedAuthorship.objects.create(work=work, position=2, raw_name="Taken", source="arxiv")
    field = Topic.objects.create(key="openalex:fields/17", name="Computer Science", kind="field")
    for number in range(NAMES + 2):
        topic = Topic.objects.create(
            key=f"t:{number}",
            name=f"Topic {number}",
            kind="topic",
            parent=field if number % 2 else None,
        )
        WorkTopic.objects.create(work=work, topic=topic, score=number / 10, source=Source.OPENALEX)
    funders = [Funder.objects.create(name=f"Funder {number}") for number in range(2)]
    for number in range(NAMES + 2):
        award = "" if number == 1 else f"A{number}"
        Grant.objects.create(work=work, funder=funders[number % 2], award_id=award)
    Citation.objects.create(citing=work, citing_openalex_id="W1", cited_openalex_id="W9")
    return work


def month_work() -> Work:
    """A work dated to the month whose citation count comes from a record of its own."""
    work = WorkFactory(
        publication_date=date(2019, 3, 1),
        publication_date_precision="month",
        publication_year=2019,
        cited_by_count=2,
        provenance={"cited_by_count": "openalex", "source_updated_at": "arxiv"},
    )
    SourceRecord.objects.create(
        source="openalex",
        external_id="W3",
        payload={},
        content_hash="0" * 64,
        fetched_at=timezone.now(),
        source_updated_at=datetime(2023, 1, 2, 3, 4, 5, tzinfo=UTC),
        work=work,
    )
    return work


def long_work(author) -> Work:
    """A byline longer than the names given, names no record holds past them, and
    ``author`` last."""
    work = WorkFactory(title="A collaboration", publication_year=2020)
    for position in range(NAMES + 4):
        AuthorshipFactory(work=work, author=AuthorFactory(), position=position)
    for position in (NAMES + 4, NAMES + 5):
        UnlinkedAuthorship.objects.create(
            work=work, position=position, raw_name=f"Last {position}", source="openalex"
        )
    AuthorshipFactory(work=work, author=author, position=NAMES + 6)
    return work


@pytest.fixture
def varied():
    """Works with every kind of value a field writes: present, empty, null, malformed."""
    author = AuthorFactory(display_name="Ada Lovelace")
    full = full_work(author)
    bare = WorkFactory(
        title="", publication_year=None, type=Work.Type.PREPRINT, code_url="not an address"
    )
    return {
        "full": full,
        "bare": bare,
        "month": month_work(),
        "long": long_work(author),
        "merged": WorkFactory(merged_into=full),
        "author": author,
    }


def test_a_list_page_writes_what_the_serializer_writes(varied):
    works = Work.objects.visible().order_by("-id")
    expected = api.WorkSerializer(selectors.works_with_authors(works, names=NAMES), many=True).data
    assert plain(page(list(rows(works)), NAMES)) == plain(expected)
    assert varied["merged"].pk not in [work["id"] for work in plain(expected)]


def test_an_authors_list_gives_the_authors_own_name_wherever_it_stands(varied):
    author = varied["author"]
    expected = api.WorkSerializer(selectors.author_works(author, names=NAMES), many=True).data
    works = Work.objects.visible().filter(authorships__author=author)
    written = page(
        list(rows(works.order_by("-publication_date", "-id"))), NAMES, author_id=author.pk
    )
    assert plain(written) == plain(expected)
    long = next(work for work in written if work["id"] == varied["long"].pk)
    assert long["authorships"][-1]["author_id"] == author.pk and long["authors_count"] == NAMES + 7


@pytest.mark.parametrize("name", ["full", "bare", "month", "long"])
def test_the_detail_writes_what_the_serializer_writes(varied, name, monkeypatch):
    monkeypatch.setattr(api, "FIRST_ROWS", NAMES)  # the serializer's topics and grants
    work = selectors.works_with_authors(Work.objects.visible(), names=NAMES).get(pk=varied[name].pk)
    assert plain(detail(work.pk, NAMES)) == plain(api.WorkDetailSerializer(work).data)


def test_the_detail_of_a_merged_or_unknown_work_is_none(varied):
    assert detail(varied["merged"].pk, NAMES) is None
    assert detail(987654, NAMES) is None


def test_the_full_works_values_as_written(varied, client):
    body = client.get(f"/api/v1/works/{varied['full'].pk}/").json()
    assert body["pdf_url"] is None and body["code_url"] == "https://github.com/example/full"
    assert [entry["raw_name"] for entry in body["unlinked_authors"]] == ["Not Held"]
    assert body["authors_count"] == 3 and body["references_count"] == 1
    assert body["cited_by_count_as_of"] == "2024-02-03T04:05:06Z"
    assert body["topics_count"] == NAMES + 2 and body["grants_count"] == NAMES + 2
    assert body["grants"][0] == {"funder": "Funder 0", "award_id": "A0"}
    assert {"funder": "Funder 1", "award_id": None} in body["grants"]


def test_list_and_detail_queries_do_not_grow_with_bylines_or_lists(
    varied, client, django_assert_max_num_queries
):
    # the count (none here: the list ends on its page), works, first names, names no
    # record holds
    with django_assert_max_num_queries(4):
        listed = client.get("/api/v1/works/?page_size=100").json()["results"]
    assert {work["id"] for work in listed} == {
        varied[name].pk for name in ("full", "bare", "month", "long")
    }
    # its authors (for its ETag), the work, first names, names no record holds, topics and
    # grants together and, where its count came from a record of its own, that record's date
    for name in ("full", "month", "long"):
        with django_assert_max_num_queries(5):
            assert client.get(f"/api/v1/works/{varied[name].pk}/").status_code == 200
