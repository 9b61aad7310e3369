"""Invisible format characters: dropped from imported text, except the joiners scripts need."""

from __future__ import annotations

import json

import pytest

from catalogue.models import Author, ImportProblem, ImportRun, Work
from catalogue.text import clean, clean_line
from ingestion.importing.dispatch import import_run_create
from ingestion.importing.execution import import_run_execute
from ingestion.records import MappingError
from ingestion.sources.arxiv import mapping as arxiv_mapping
from tests.hostile import good_works

INVISIBLE_TITLE = "\u200b\u200b\u202e"


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        (INVISIBLE_TITLE, ""),
        ("Zed\u200b\u200d\ufeff Roe", "Zed Roe"),
        ("Zed\u200d Roe", "Zed Roe"),  # a joiner beside ASCII joins nothing
        ("\ufeffBOM title", "BOM title"),
        ("Mar\u00adtin", "Martin"),  # soft hyphen
        ("f\u2061(x) = a\u2062b", "f(x) = ab"),  # invisible operators
        ("Word\u2060joiner", "Wordjoiner"),
        ("tag\U000e0041\U000e0042 smuggled", "tag smuggled"),
        # Kept: ZWNJ in Persian, ZWJ in Devanagari and in emoji sequences.
        (
            "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
            "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
        ),
        ("\u0915\u094d\u200d\u0937", "\u0915\u094d\u200d\u0937"),
        (
            "\U0001f468\u200d\U0001f469\u200d\U0001f467",
            "\U0001f468\u200d\U0001f469\u200d\U0001f467",
        ),
        ("\U0001f3f3\ufe0f\u200d\U0001f308", "\U0001f3f3\ufe0f\u200d\U0001f308"),
        # Kept: the direction marks a title mixing scripts may need.
        ("\u05e9\u05dc\u05d5\u05dd\u200f (C++)", "\u05e9\u05dc\u05d5\u05dd\u200f (C++)"),
        # A joiner at an edge or beside a space goes.
        ("\u200d\u00e9t\u00e9\u200d \u200c", "\u00e9t\u00e9"),
    ],
)
def test_clean_line_drops_invisible_characters_but_needed_joiners(raw, kept):
    assert clean_line(raw, 300) == kept


def test_plain_ascii_is_returned_as_it_is():
    text = "Deep learning on the square lattice"
    assert clean(text) is text


def test_an_arxiv_title_of_invisible_characters_has_no_title():
    entry = {"id": "http://arxiv.org/abs/2101.00001v1", "title": INVISIBLE_TITLE, "summary": "A"}
    with pytest.raises(MappingError, match="has no title"):
        arxiv_mapping.map_entry(entry)


@pytest.mark.django_db
def test_an_invisible_title_is_quarantined_and_names_lose_invisible_characters(tmp_path):
    invisible, good = good_works()[:2]
    invisible["title"] = invisible["display_name"] = INVISIBLE_TITLE
    path = tmp_path / "works.jsonl"
    path.write_text(json.dumps(invisible) + "\n" + json.dumps(good) + "\n")
    run = import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(path)]}, queue=False
    )
    run = import_run_execute(run_id=run.pk)

    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    [problem] = ImportProblem.objects.filter(run=run)
    assert problem.external_id == invisible["id"]
    assert "has no title" in problem.error
    assert list(Work.objects.values_list("openalex_id", flat=True)) == [
        good["id"].rsplit("/", 1)[1]
    ]
    assert Work.objects.get().title.strip()
    names = set(Author.objects.values_list("display_name", flat=True))
    assert "Zed Roe" in names
    assert not any(ch in name for name in names for ch in "\u200b\u200c\u200d\ufeff\u202e")
