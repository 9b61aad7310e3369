"""Records the curation tests talk about: payloads to import, and what to compare."""

from catalogue.models import Authorship
from ingestion.importing import ingesting

TITLE = "Quantum widgets on a square lattice"


def openalex_work(number: int, title: str, authors: list[tuple[str | None, str]], **extra) -> dict:
    """A minimal OpenAlex work: ``authors`` are (A id or None, display name)."""
    return {
        "id": f"https://openalex.org/W90000000{number}",
        "title": title,
        "publication_year": 2020,
        "publication_date": "2020-05-01",
        "type": "article",
        "cited_by_count": 3,
        "authorships": [
            {
                "author": {
                    "id": f"https://openalex.org/{author_id}" if author_id else None,
                    "display_name": name,
                }
            }
            for author_id, name in authors
        ],
        **extra,
    }


def arxiv_entry(arxiv_id: str, title: str, names: list[str], **extra) -> dict:
    return {
        "id": f"http://arxiv.org/abs/{arxiv_id}v1",
        "arxiv_id": arxiv_id,
        "title": title,
        "summary": "We study widgets.",
        "authors": [{"name": name, "affiliations": []} for name in names],
        "published": "2020-06-01T00:00:00Z",
        "updated": "2020-06-01T00:00:00Z",
        "primary_category": "cond-mat.str-el",
        "categories": ["cond-mat.str-el"],
        "links": [],
        **extra,
    }


def ingest(entity: str, *payloads: dict) -> None:
    """Import payloads the way a run does: map, then ingest."""
    for payload in payloads:
        ingesting.import_payload(run=None, entity=entity, payload=payload)


def authorships():
    """Every authorship with all its fields, to compare before and after."""
    rows = Authorship.objects.order_by("pk").values(
        "pk",
        "work_id",
        "author_id",
        "position",
        "raw_name",
        "raw_affiliation",
        "is_corresponding",
        "source",
        "confidence",
    )
    links = Authorship.institutions.through.objects.values_list("authorship_id", "institution_id")
    return list(rows), sorted(links)
