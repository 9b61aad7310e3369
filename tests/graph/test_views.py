"""The slice on the researcher page, the explorer and the API, with bad input."""

import pytest
from django.urls import reverse

from catalogue.models import Author
from catalogue.signals import authors_changed
from graph import services, tasks
from tests.factories import AuthorFactory, WorkFactory
from tests.graph.conftest import link

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("empty_cache")]


def slice_url(pk: int) -> str:
    return reverse("graph:slice", args=[pk])


def explorer_url(pk: int) -> str:
    return reverse("graph:explorer", args=[pk])


def test_the_researcher_page_loads_the_slice_and_links_the_explorer(client, known):
    page = client.get(known.people["ada"].get_absolute_url()).content.decode()
    assert f'hx-get="{slice_url(known.pk("ada"))}"' in page
    assert "Building this graph slice" in page
    assert f'href="{explorer_url(known.pk("ada"))}"' in page


def test_the_slice_is_built_once_then_served_from_the_cache(
    client, known, django_assert_num_queries
):
    first = client.get(slice_url(known.pk("ada")))
    assert first.status_code == 200
    html = first.content.decode()
    assert "Bob Example" in html and "<svg" in html
    with django_assert_num_queries(0):
        again = client.get(slice_url(known.pk("ada")))
    assert again.content == first.content


def test_new_works_invalidate_the_cached_slice(client, known):
    assert "Gus Example" not in client.get(slice_url(known.pk("ada"))).content.decode()
    gus = AuthorFactory(display_name="Gus Example")
    for title in ("With Gus", "With Gus again"):  # two joint works: a close collaborator
        link(WorkFactory(title=title, publication_year=2025), [known.people["ada"], gus])
    authors_changed.send(sender=None, author_ids=[known.pk("ada"), gus.pk])
    assert "Gus Example" in client.get(slice_url(known.pk("ada"))).content.decode()


@pytest.fixture
def with_a_worker(settings):
    """Tasks go to a broker instead of running inline (nothing consumes them here)."""
    from config.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = False
    previous = app.conf.task_always_eager
    app.conf.task_always_eager = False
    yield
    app.conf.task_always_eager = previous


def test_with_a_worker_the_slice_is_queued_once_and_polled(
    client, known, monkeypatch, with_a_worker
):
    queued = []
    monkeypatch.setattr(tasks.build_slice, "delay", lambda pk: queued.append(pk))
    ada = known.pk("ada")
    first = client.get(slice_url(ada)).content.decode()
    client.get(slice_url(ada) + "?poll=1")
    assert queued == [ada]
    assert "Building this graph slice" in first and "poll=1" in first
    assert "taking longer than usual" in client.get(slice_url(ada) + "?poll=20").content.decode()
    tasks.build_slice(ada)  # what the worker runs
    assert "Bob Example" in client.get(slice_url(ada)).content.decode()


def test_an_author_with_no_coauthors_renders_sensibly(client, db):
    alone = AuthorFactory(display_name="Solo Example")
    link(WorkFactory(title="On my own", publication_year=2020), [alone])
    html = client.get(slice_url(alone.pk)).content.decode()
    assert "On my own" in html
    nobody = AuthorFactory(display_name="Nobody Example")
    html = client.get(slice_url(nobody.pk)).content.decode()
    assert "no graph to draw" in html
    assert client.get(explorer_url(nobody.pk)).status_code == 200


def test_markup_in_names_is_shown_as_text(client, known):
    bob = known.people["bob"]
    bob.display_name = '<img src=x onerror="alert(1)">Bob'
    bob.save(update_fields=["display_name"])
    for url in (slice_url(known.pk("ada")), explorer_url(known.pk("ada"))):
        html = client.get(url).content.decode()
        assert "<img src=x" not in html
        assert "&lt;img src=x onerror=" in html


def test_a_deleted_or_unknown_author_is_404_and_a_merged_one_redirects(client, known):
    dee = known.people["dee"]
    Author.objects.filter(pk=dee.pk).update(is_deleted=True)
    assert client.get(slice_url(dee.pk)).status_code == 404
    assert client.get(explorer_url(dee.pk)).status_code == 404
    assert client.get(slice_url(999999)).status_code == 404
    body = client.get(reverse("api:author-graph", args=[dee.pk])).json()
    assert body["error"]["status"] == 404
    cy = known.people["cy"]
    Author.objects.filter(pk=cy.pk).update(merged_into=known.people["bob"])
    response = client.get(explorer_url(cy.pk))
    # A merge can be undone: the redirect is not one browsers keep.
    assert response.status_code == 302 and response["Location"] == explorer_url(known.pk("bob"))


def test_the_explorer_filters_and_lists(client, known):
    html = client.get(explorer_url(known.pk("ada")), {"min_joint": 2}).content.decode()
    assert "Bob Example" in html and "Dee Example" not in html
    html = client.get(
        explorer_url(known.pk("ada")), {"kinds": ["person"], "find": "cy"}
    ).content.decode()
    assert "Cy Example" in html and "Work w1" not in html


def test_bad_explorer_filters_say_what_is_wrong(client, known):
    response = client.get(
        explorer_url(known.pk("ada")),
        {"year_from": "2030", "year_to": "2000", "min_joint": "lots", "kinds": "planets"},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "The end year comes before the start year." in html
    assert "Enter a whole number." in html
    assert "Select a valid choice" in html


def test_the_api_returns_nodes_and_edges(client, known):
    url = reverse("api:author-graph", args=[known.pk("ada")])
    close = {n["label"] for n in client.get(url).json()["nodes"] if n["kind"] == "person"}
    assert close == {"Ada Example", "Bob Example"}  # two or more joint works, as the card
    body = client.get(url + "?min_joint=1").json()
    labels = {n["label"] for n in body["nodes"]}
    assert {"Ada Example", "Bob Example", "Cy Example", "Dee Example"} <= labels
    assert "Eve Example" not in labels
    ids = {n["id"]: n["label"] for n in body["nodes"]}
    pairs = {(ids[e["source"]], ids[e["target"]], e["weight"]) for e in body["edges"]}
    assert ("Ada Example", "Bob Example", 2) in pairs
    assert all(
        n["url"].startswith("http://testserver/") or n["url"].startswith("https://")
        for n in body["nodes"]
    )


def test_the_api_reports_bad_parameters_in_the_error_shape(client, known):
    url = reverse("api:author-graph", args=[known.pk("ada")])
    body = client.get(url, {"kinds": "person,planet", "year_from": 2030, "year_to": 2000}).json()
    assert body["error"]["status"] == 400
    assert "kinds" in body["error"]["details"]
    body = client.get(url, {"scope": "galaxy"}).json()
    assert "scope" in body["error"]["details"]


def test_the_slice_version_is_stable_until_bumped(db):
    first = services.version(1)
    assert services.version(1) == first
    services.versions_bump([1])
    assert services.version(1) != first
