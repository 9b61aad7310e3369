"""The explorer steps to a person or a paper: links, the swapped fragment, the paper graph."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from catalogue.models import Source, Topic, Work, WorkSimilarity, WorkTopic
from graph.crowd import EXPLORER_CAPS
from graph.paper import PAPER_EXPLORER
from tests.factories import AuthorFactory, AuthorshipFactory, InstitutionFactory, WorkFactory
from tests.graph.conftest import link

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def explorer_url(pk: int) -> str:
    return reverse("graph:explorer", args=[pk])


def work_graph_url(pk: int) -> str:
    return reverse("graph:work-explorer", args=[pk])


def node_links(html: str) -> dict[str, str]:
    """``{node id: the opening tag of its link}`` in the drawn picture."""
    return {
        m.group(2): m.group(0)
        for m in re.finditer(r'<a class="node[^"]*"([^>]*)data-node="(\w+)">', html)
    }


def a_paper_with(authors: int, *, title: str = "A paper to centre on") -> Work:
    work = WorkFactory(title=title, publication_year=2022)
    link(work, [AuthorFactory(display_name=f"Byline Person {n:03d}") for n in range(authors)])
    return work


def test_people_and_papers_in_the_picture_lead_to_their_own_explorer(client, known):
    html = client.get(explorer_url(known.pk("ada"))).content.decode()
    links = node_links(html)
    bob = links[f"a{known.pk('bob')}"]
    assert f'href="{explorer_url(known.pk("bob"))}"' in bob
    assert f'data-hx-get="{explorer_url(known.pk("bob"))}"' in bob
    w1 = known.works["w1"]
    assert f'data-hx-get="{work_graph_url(w1.pk)}"' in links[f"w{w1.pk}"]
    # The centre opens its page; topics and institutions keep their links and no swap.
    assert f'href="{known.people["ada"].get_absolute_url()}"' in links[f"a{known.pk('ada')}"]
    institution = next(tag for key, tag in links.items() if key.startswith("i"))
    assert "data-hx-get" not in institution and 'href="/institutions/' in institution
    # The list view offers the same step, as a plain link that htmx can take over.
    assert html.count(f'class="graph-centre-link" href="{explorer_url(known.pk("bob"))}"') == 1


def test_a_step_to_another_researcher_keeps_the_filters_but_not_the_search(client, known):
    html = client.get(
        explorer_url(known.pk("ada")), {"kinds": ["person", "paper"], "min_joint": 1, "find": "b"}
    ).content.decode()
    target = f"{explorer_url(known.pk('bob'))}?kinds=person&amp;kinds=paper&amp;min_joint=1"
    assert f'href="{target}"' in node_links(html)[f"a{known.pk('bob')}"]
    assert "find=" not in html.split('id="graph-viewport"')[1].split("</svg>")[0]


def test_htmx_gets_the_explorer_alone_and_history_gets_the_page(client, known):
    url = explorer_url(known.pk("bob"))
    fragment = client.get(url, **HX)
    body = fragment.content.decode()
    assert fragment.status_code == 200
    assert body.startswith("<title>Research graph of Bob Example")
    assert "<html" not in body and '<header class="site-header' not in body
    assert body.count('id="graph-explorer"') == 1
    assert 'data-hx-target="#graph-explorer"' in body and 'data-hx-push-url="true"' in body
    assert "<h1" in body and "Bob Example</h1>" in body
    assert "HX-Request" in fragment["Vary"]
    page = client.get(url, HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true")
    assert "<html" in page.content.decode() and "graph-explorer.js" in page.content.decode()
    full = client.get(url).content.decode()
    assert "<html" in full and 'src="/static/js/graph-explorer.js"' in full


def test_the_paper_graph_shows_authors_affiliations_topics_and_similar_works(client, known):
    w1 = known.works["w1"]
    topic = Topic.objects.create(key="openalex:T1", name="Graph Drawing", kind=Topic.Kind.TOPIC)
    WorkTopic.objects.create(
        work=w1, topic=topic, score=0.9, is_primary=True, source=Source.OPENALEX
    )
    WorkSimilarity.objects.create(
        work=w1,
        similar=known.works["w3"],
        score=0.8,
        reasons=[{"kind": "authors", "label": "shares authors Bob"}],
    )
    merged_away = WorkFactory(title="Merged away", merged_into=known.works["w2"])
    WorkSimilarity.objects.create(work=w1, similar=merged_away, score=0.9, reasons=[])
    lab = InstitutionFactory(name="Paper Lab", ror="01xyz0000")
    w1.authorships.get(author=known.people["cy"]).institutions.add(lab)

    response = client.get(work_graph_url(w1.pk))
    assert response.status_code == 200
    html = response.content.decode()
    links = node_links(html)
    assert "Work w1</h1>" in html
    assert f'href="{w1.get_absolute_url()}"' in links[f"w{w1.pk}"]  # the centre opens its page
    for name in ("ada", "bob", "cy"):
        assert f'data-hx-get="{explorer_url(known.pk(name))}"' in links[f"a{known.pk(name)}"]
    assert f"a{known.pk('dee')}" not in links  # not on this paper
    assert (
        f'data-hx-get="{work_graph_url(known.works["w3"].pk)}"' in links[f"w{known.works['w3'].pk}"]
    )
    assert "shares authors Bob" in html
    assert f"w{merged_away.pk}" not in links
    assert f"t{topic.pk}" in links and "Primary topic of this paper" in html
    assert f"i{lab.pk}" in links and "Affiliation of 1 author of this paper" in html
    assert "1st author of this paper" in html and "3rd author of this paper" in html


def test_bad_or_merged_papers_and_people_answer_404_or_redirect(client, known):
    assert client.get(work_graph_url(999999)).status_code == 404
    assert client.get(work_graph_url(999999), **HX).status_code == 404
    assert client.get(explorer_url(999999), **HX).status_code == 404
    assert client.get("/works/abc/graph/").status_code == 404
    w2 = known.works["w2"]
    Work.objects.filter(pk=w2.pk).update(merged_into=known.works["w1"])
    response = client.get(work_graph_url(w2.pk))
    assert response.status_code == 302
    assert response["Location"] == work_graph_url(known.works["w1"].pk)


def test_a_paper_alone_renders_sensibly(client, db):
    lonely = WorkFactory(title="Nobody wrote this")
    html = client.get(work_graph_url(lonely.pk)).content.decode()
    assert "Nothing is linked around this paper" in html


def _queries(client, url: str, **headers) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url, **headers).status_code == 200
    return len(captured)


def test_the_paper_graph_reads_the_same_few_queries_for_any_byline(client, db):
    small = a_paper_with(3)
    huge = a_paper_with(PAPER_EXPLORER.authors * 3)
    for other in (small, huge):
        WorkSimilarity.objects.create(work=other, similar=WorkFactory(), score=0.5, reasons=[])
    client.get(work_graph_url(small.pk))  # warm the session and content types
    few = _queries(client, work_graph_url(small.pk))
    many = _queries(client, work_graph_url(huge.pk))
    assert many == few <= 8
    assert _queries(client, work_graph_url(huge.pk), **HX) == few
    html = client.get(work_graph_url(huge.pk)).content.decode()
    # The list names the whole bounded byline; the picture groups what it does not draw.
    people = re.search(r'id="graph-list-person">(.*?)</section>', html, re.S).group(1)
    assert people.count("<li") == PAPER_EXPLORER.authors
    drawn = node_links(html)
    assert len([key for key in drawn if key.startswith("a")]) == EXPLORER_CAPS.person - 1
    assert "gperson" in drawn
    assert "Byline Person 000" in html and f"Byline Person {PAPER_EXPLORER.authors:03d}" not in html


def test_the_researcher_explorer_fragment_is_bounded(client, known, django_assert_max_num_queries):
    for n in range(40):
        extra = AuthorFactory(display_name=f"Extra Person {n}")
        link(
            WorkFactory(title=f"Extra work {n}", publication_year=2020),
            [known.people["ada"], extra],
        )
    from graph import edges

    edges.edges_rebuild()
    with django_assert_max_num_queries(25):
        assert client.get(explorer_url(known.pk("ada")), **HX).status_code == 200


def test_hostile_titles_names_and_reasons_are_text_everywhere(client, db):
    work = WorkFactory(title='<script>alert("t")</script>Title <img src=x onerror=alert(1)>')
    person = AuthorFactory(display_name='"><svg onload=alert(2)>Eve')
    AuthorshipFactory(work=work, author=person, position=0)
    other = WorkFactory(title="</title><script>alert(3)</script>")
    WorkSimilarity.objects.create(
        work=work,
        similar=other,
        score=0.7,
        reasons=[{"label": "<b onmouseover=alert(4)>x</b>"}, "junk", 5],
    )
    WorkSimilarity.objects.create(
        work=other, similar=work, score=0.7, reasons={"label": "not a list"}
    )
    for url in (work_graph_url(work.pk), work_graph_url(other.pk)):
        for headers in ({}, HX):
            html = client.get(url, **headers).content.decode()
            for needle in (
                "<script>alert",
                "<img src=x",
                "<svg onload",
                "<b onmouseover",
                "</title><script>",
            ):
                assert needle not in html, (url, headers, needle)
    html = client.get(work_graph_url(work.pk), **HX).content.decode()
    assert "&lt;svg onload=alert(2)&gt;Eve" in html
    # Titles are read as the pages read them: markup dropped, the words kept.
    assert "Title</h1>" in html and "Untitled work" in html
    assert (
        "&lt;b onmouseover=alert(4)&gt;x&lt;/b&gt;"
        in client.get(work_graph_url(work.pk)).content.decode()
    )
