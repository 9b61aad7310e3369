"""The work page's References and Cited by sections, and the API lists beside them."""

from __future__ import annotations

import re
from datetime import date

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from catalogue.metrics import author_metrics_refresh
from catalogue.models import Citation, Work
from config.sites import absolute_url
from tests.factories import AuthorshipFactory, WorkFactory

pytestmark = pytest.mark.django_db


def cite(citing: Work, cited: Work | None = None, openalex_id: str = "") -> Citation:
    return Citation.objects.create(
        citing=citing,
        citing_openalex_id=citing.openalex_id or f"W9{citing.pk}",
        cited=cited,
        cited_openalex_id=(cited.openalex_id if cited else openalex_id),
    )


@pytest.fixture
def work():
    return WorkFactory(openalex_id="W100", cited_by_count=57, title="The cited work")


def section(html: str, anchor: str) -> str:
    match = re.search(rf'<section class="citations" id="{anchor}".*?</section>', html, re.S)
    assert match, f"no section #{anchor}"
    return match.group(0)


def test_references_count_all_and_link_ours_and_openalex_for_the_rest(client, work):
    held = WorkFactory(openalex_id="W200", title="A held reference")
    cite(work, held)
    cite(work, openalex_id="W300")
    cite(work, openalex_id="W301")
    html = client.get(work.get_absolute_url()).content.decode()
    refs = section(html, "references")
    assert 'References <span class="count">(3; 1 on this site)</span>' in refs
    assert f'href="{held.get_absolute_url()}"' in refs
    assert 'href="https://openalex.org/W300"' in refs
    assert 'href="https://openalex.org/W301"' in refs
    assert refs.index("A held reference") < refs.index("W300")


def test_cited_by_lists_citing_works_newest_first_with_both_counts(client, work):
    old = WorkFactory(
        openalex_id="W1", title="Older citing work", publication_date=date(2019, 1, 1)
    )
    new = WorkFactory(
        openalex_id="W2", title="Newer citing work", publication_date=date(2024, 5, 1)
    )
    cite(old, work)
    cite(new, work)
    cite(WorkFactory(openalex_id="W3"), openalex_id="W999")  # cites something else
    html = client.get(work.get_absolute_url()).content.decode()
    cited_by = section(html, "cited-by")
    assert "(2 on this site; 57 per OpenAlex)" in cited_by
    assert cited_by.index("Newer citing work") < cited_by.index("Older citing work")


def test_an_unknown_source_count_is_said_so(client):
    work = WorkFactory(openalex_id="W5", cited_by_count=None)
    html = client.get(work.get_absolute_url()).content.decode()
    assert "(0 on this site; count not known per OpenAlex)" in section(html, "cited-by")
    assert "No references are known" in section(html, "references")


def test_cited_by_is_paged(client, work):
    for year in range(2000, 2023):
        cite(WorkFactory(title=f"Citing from {year}", publication_date=date(year, 1, 1)), work)
    first = section(client.get(work.get_absolute_url()).content.decode(), "cited-by")
    assert "Citing from 2022" in first and "Citing from 2012" not in first
    assert "cited_by=2#cited-by" in first
    third = client.get(work.get_absolute_url() + "?cited_by=3").content.decode()
    assert "Citing from 2002" in section(third, "cited-by")
    assert "Citing from 2022" not in section(third, "cited-by")


def test_references_are_paged(client, work):
    for number in range(60):
        cite(work, openalex_id=f"W5{number:03d}")
    html = client.get(work.get_absolute_url() + "?references=3").content.decode()
    refs = section(html, "references")
    assert "W5050" in refs and "W5000" not in refs
    assert "Page 3 of 3" in refs


def _work_cited(count: int) -> Work:
    work = WorkFactory(openalex_id=f"W7{count}", cited_by_count=count)
    for number in range(count):
        citing = WorkFactory(openalex_id=f"W8{count}{number:04d}")
        AuthorshipFactory(work=citing)
        AuthorshipFactory(work=citing, position=1)
        cite(citing, work)
        cite(work, citing)
        cite(work, openalex_id=f"W6{count}{number:04d}")
    return work


def _queries(client, work) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(work.get_absolute_url()).status_code == 200
    return len(queries)


def test_query_count_is_the_same_for_30_or_300_citations(client, django_assert_max_num_queries):
    # More than a page of references each: both pages show the same kinds of rows.
    small, large = _work_cited(30), _work_cited(300)
    # The first visit reads no kept summary, draws the work's and keeps it; each
    # drawing kept fills a gap only (a row of another generation is removed first).
    with django_assert_max_num_queries(26):
        client.get(large.get_absolute_url())
    client.get(small.get_absolute_url())  # both pages' list entries drawn and kept
    assert _queries(client, small) == _queries(client, large)


def test_the_api_lists_references_with_our_work_or_null(client, work):
    held = WorkFactory(openalex_id="W200", title="A held reference")
    cite(work, held)
    cite(work, openalex_id="W300")
    body = client.get(f"/api/v1/works/{work.pk}/references/").json()
    assert body["count"] == 2
    first, second = body["results"]
    assert first["openalex_id"] == "W200" and first["work"]["id"] == held.pk
    assert first["work"]["url"] == absolute_url(held.get_absolute_url())
    assert second == {
        "openalex_id": "W300",
        "openalex_url": "https://openalex.org/W300",
        "work": None,
    }


def test_the_api_lists_citing_works_newest_first_and_pages(client, work):
    for year in (2001, 2020, 2010):
        cite(WorkFactory(title=f"Citing {year}", publication_date=date(year, 1, 1)), work)
    body = client.get(f"/api/v1/works/{work.pk}/cited-by/?page_size=2").json()
    assert body["count"] == 3
    assert [w["title"] for w in body["results"]] == ["Citing 2020", "Citing 2010"]
    assert body["next"]


def test_the_api_answers_404_for_an_unknown_or_merged_work(client, work):
    assert client.get("/api/v1/works/999999/references/").status_code == 404
    gone = WorkFactory(merged_into=work)
    assert client.get(f"/api/v1/works/{gone.pk}/cited-by/").status_code == 404


def test_the_api_lists_cost_the_same_at_any_length(client, django_assert_max_num_queries):
    small, large = _work_cited(3), _work_cited(120)
    for path in ("references", "cited-by"):
        counts = []
        for work in (small, large):
            with CaptureQueriesContext(connection) as queries:
                assert client.get(f"/api/v1/works/{work.pk}/{path}/").status_code == 200
            counts.append(len(queries))
        assert counts[0] == counts[1] <= 6, (path, counts)


def test_the_researcher_page_shows_citations_held_here_beside_the_sources(client, work):
    author = AuthorshipFactory(work=work).author
    cite(WorkFactory(), work)
    cite(WorkFactory(), work)
    author_metrics_refresh(author_ids=[author.pk])
    author.refresh_from_db()
    assert author.metrics.site_citations == 2
    html = client.get(author.get_absolute_url()).content.decode()
    stat = re.search(r'data-testid="site-citations">.*?</div>', html, re.S).group(0)
    assert "cited on this site" in stat and ">2<" in stat
    body = client.get(f"/api/v1/authors/{author.pk}/").json()
    assert body["metrics"]["site_citations"] == 2


def test_local_openalex_form_ids_are_not_sent_to_openalex(client):
    local = WorkFactory(openalex_id="W9000000027", title="A demo record")
    cite(local, openalex_id="W9000000031")  # a reference held nowhere, with a local id
    cite(local, openalex_id="W300")
    html = client.get(local.get_absolute_url()).content.decode()
    assert "openalex.org/W9000000027" not in html
    assert 'W9000000027 <span class="muted">(local, not at OpenAlex)</span>' in html
    refs = section(html, "references")
    assert "openalex.org/W9000000031" not in refs
    assert 'W9000000031 <span class="muted">(local id, not at OpenAlex; not held here)' in refs
    assert 'href="https://openalex.org/W300"' in refs

    ours = WorkFactory(openalex_id="W4385245566", title="A record OpenAlex holds")
    html = client.get(ours.get_absolute_url()).content.decode()
    assert '<a href="https://openalex.org/W4385245566" rel="noopener">W4385245566</a>' in html
