"""Recorded-file builders for the tests of what imported records say (test_facts_*)."""

from __future__ import annotations

import json
from itertools import count
from xml.sax.saxutils import escape

from catalogue.models import ImportRun
from ingestion.importing.dispatch import import_run_create
from ingestion.importing.execution import import_run_execute

_names = count(1)


def run_file(tmp_path, text: str, suffix: str = ".json") -> ImportRun:
    """Import ``text`` as a recorded file; return the finished run."""
    path = tmp_path / f"recorded-{next(_names)}{suffix}"
    path.write_text(text, encoding="utf-8")
    run = import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(path)]}, queue=False
    )
    import_run_execute(run_id=run.pk)
    run.refresh_from_db()
    return run


def openalex_page(*works: dict) -> str:
    return json.dumps({"meta": {"count": len(works), "page": 1}, "results": list(works)})


def inverted(text: str) -> dict:
    index: dict[str, list[int]] = {}
    for position, word in enumerate(text.split(" ")):
        index.setdefault(word, []).append(position)
    return index


def openalex_work(number: int, title: str, **fields) -> dict:
    """A small OpenAlex work payload; ``fields`` replace or add keys."""
    work = {
        "id": f"https://openalex.org/W{number}",
        "title": title,
        "display_name": title,
        "type": "article",
        "publication_year": 2022,
        "publication_date": "2022-06-01",
        "authorships": [
            {
                "author_position": "first",
                "author": {"id": f"https://openalex.org/A{number}", "display_name": "Ada Lovelace"},
                "institutions": [],
                "raw_author_name": "Ada Lovelace",
            }
        ],
    }
    work.update(fields)
    return work


def arxiv_entry(arxiv_id: str, title: str, published: str, **fields: str) -> str:
    """One Atom entry; ``fields``: summary, comment, authors (comma-separated),
    journal_ref, updated (a date), categories (space-separated, the primary first)."""
    authors = "".join(
        f"<author><name>{escape(name.strip())}</name></author>"
        for name in fields.get("authors", "Ada Lovelace").split(",")
    )
    comment, journal_ref = fields.get("comment"), fields.get("journal_ref")
    updated = fields.get("updated", published)
    categories = fields.get("categories", "cs.LG").split()
    scheme = 'scheme="http://arxiv.org/schemas/atom"'
    return (
        f"<entry><id>http://arxiv.org/abs/{arxiv_id}v1</id>"
        f"<title>{escape(title)}</title>"
        f"<updated>{updated}T00:00:00Z</updated><published>{published}T00:00:00Z</published>"
        f'<link href="https://arxiv.org/abs/{arxiv_id}v1" rel="alternate" type="text/html"/>'
        f"<summary>{escape(fields.get('summary', 'We study things.'))}</summary>"
        + (f"<arxiv:comment>{escape(comment)}</arxiv:comment>" if comment else "")
        + (f"<arxiv:journal_ref>{escape(journal_ref)}</arxiv:journal_ref>" if journal_ref else "")
        + f'<arxiv:primary_category term="{escape(categories[0])}" {scheme}/>'
        + "".join(f'<category term="{escape(code)}" {scheme}/>' for code in categories)
        + f"{authors}</entry>"
    )


def arxiv_feed(*entries: str) -> str:
    return (
        "<?xml version='1.0' encoding='UTF-8'?>"
        '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom"'
        ' xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
        "<id>urn:test</id><title>arXiv Query</title><updated>2026-01-01T00:00:00Z</updated>"
        f"<opensearch:totalResults>{len(entries)}</opensearch:totalResults>"
        "<opensearch:startIndex>0</opensearch:startIndex>"
        "<opensearch:itemsPerPage>100</opensearch:itemsPerPage>" + "".join(entries) + "</feed>"
    )
