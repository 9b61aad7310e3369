"""Rows written before the source rules of types, date precision and arXiv categories
are brought under them by migration 0025, from the source records they were read from."""

from datetime import date
from importlib import import_module

import pytest
from django.apps import apps
from django.utils import timezone

from catalogue.models import SourceRecord, Topic, Work, WorkTopic
from tests.factories import WorkFactory

pytestmark = pytest.mark.django_db

MIGRATION = "catalogue.migrations.0025_works_keep_source_types_and_date_precision"


def _read_from(work: Work, source: str, external_id: str, **payload) -> None:
    SourceRecord.objects.create(
        source=source,
        entity="work",
        external_id=external_id,
        payload={"id": external_id, **payload},
        content_hash=external_id,
        fetched_at=timezone.now(),
        work=work,
    )


def _run(*steps: str) -> None:
    migration = import_module(MIGRATION)
    for step in steps:
        getattr(migration, step)(apps, None)


def test_types_read_as_other_or_article_become_the_type_openalex_gave():
    erratum = WorkFactory(type="other", provenance={"type": "openalex"})
    letter = WorkFactory(type="article", provenance={"type": "openalex"})
    article = WorkFactory(type="article", provenance={"type": "openalex"})
    curated = WorkFactory(type="other", provenance={"type": "staff"})
    _read_from(erratum, "openalex", "W1", type="erratum")
    _read_from(letter, "openalex", "W2", type="letter")
    _read_from(article, "openalex", "W3", type="journal-article")
    _read_from(curated, "openalex", "W4", type="paratext")
    _run("types_as_openalex_gives_them")
    found = {w.pk: w.type for w in Work.objects.all()}
    assert found == {
        erratum.pk: "erratum",
        letter.pk: "letter",
        article.pk: "article",
        curated.pk: "other",  # staff set it: not OpenAlex's word
    }


def test_openalex_dates_take_their_precision_and_a_preprint_arxiv_s_day():
    year = WorkFactory(
        publication_date=date(2018, 1, 1),
        publication_year=2018,
        provenance={"publication_date": "openalex"},
    )
    month = WorkFactory(
        publication_date=date(2004, 7, 1),
        publication_year=2004,
        provenance={"publication_date": "openalex"},
    )
    day = WorkFactory(
        publication_date=date(2018, 2, 13),
        publication_year=2018,
        provenance={"publication_date": "openalex"},
    )
    arxiv = WorkFactory(
        publication_date=date(2023, 1, 1),
        publication_year=2023,
        provenance={"publication_date": "openalex", "date_version": "first"},
    )
    _read_from(arxiv, "arxiv", "2312.07559", published="2023-12-14T17:40:00+00:00")
    _run("openalex_dates_at_their_precision")
    found = {
        w.pk: (w.publication_date, w.publication_date_precision, w.provenance["publication_date"])
        for w in Work.objects.all()
    }
    assert found == {
        year.pk: (date(2018, 1, 1), "year", "openalex"),
        month.pk: (date(2004, 7, 1), "month", "openalex"),
        day.pk: (date(2018, 2, 13), "day", "openalex"),
        arxiv.pk: (date(2023, 12, 14), "day", "arxiv"),
    }


def test_journal_references_date_the_version_of_record_and_msc_classes_go():
    dated = WorkFactory(
        publication_date=date(2011, 11, 8),
        publication_year=2011,
        journal_ref="Phys. Rev. B 85, 115117 (2012)",
        provenance={"publication_date": "arxiv", "date_version": "first"},
    )
    published = WorkFactory(
        publication_date=date(2012, 3, 19),
        publication_year=2012,
        journal_ref="Phys. Rev. B 85 (2011)",
        provenance={"publication_date": "openalex", "date_version": "record"},
    )
    geometry = Topic.objects.create(key="arxiv:math.DG", name="Differential Geometry", kind="arxiv")
    msc = Topic.objects.create(key="arxiv:53C", name="53C", kind="arxiv")
    for topic in (geometry, msc):
        WorkTopic.objects.create(work=dated, topic=topic, source="arxiv")
    _run("journal_references_date_the_version_of_record", "classes_are_not_arxiv_categories")
    dated.refresh_from_db()
    assert (dated.publication_date, dated.publication_year) == (date(2012, 1, 1), 2012)
    assert dated.publication_date_precision == "year"
    assert dated.source_created_date == date(2011, 11, 8)
    assert dated.provenance["date_version"] == "record"
    assert dated.provenance["source_created_date"] == "arxiv"
    published.refresh_from_db()
    assert published.publication_date == date(2012, 3, 19)
    assert list(dated.topics.values_list("key", flat=True)) == ["arxiv:math.DG"]
    assert not Topic.objects.filter(key="arxiv:53C").exists()
