"""Running imports of recorded files in tests, and reading back what they wrote."""

import json

from catalogue.models import Authorship, MergeCandidate, Work
from ingestion.importing.dispatch import import_run_create
from ingestion.importing.execution import import_run_execute

SNAPSHOT = "openalex/snapshot/works__updated_date=2021-11-03__part_000.jsonl"


def file_run(*paths):
    """A run over recorded files, created but not yet carried out."""
    return import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(p) for p in paths]}, queue=False
    )


def run_files(*paths, progress=None):
    return import_run_execute(run_id=file_run(*paths).pk, progress=progress)


def write_lines(path, records):
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


def written() -> dict:
    """What an import wrote, by external ids (row ids differ from one import to another)."""
    works = {
        w["openalex_id"]: (w["title"], w["doi"], w["publication_year"], w["venue__name"])
        for w in Work.objects.values(
            "openalex_id", "title", "doi", "publication_year", "venue__name"
        )
    }
    authorships = set(
        Authorship.objects.values_list(
            "work__openalex_id", "author__openalex_id", "position", "confidence"
        )
    )
    candidates = {  # which of two works written at once is "a" depends on timing
        (kind, frozenset(pair))
        for kind, *pair in MergeCandidate.objects.values_list(
            "kind", "work_a__openalex_id", "work_b__openalex_id"
        )
    }
    return {"works": works, "authorships": authorships, "candidates": candidates}
