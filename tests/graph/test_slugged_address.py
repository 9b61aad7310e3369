"""The explorers answer under the researcher's and the work's slugged addresses too."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_the_researcher_explorer_answers_under_the_slugged_address(client, known):
    ada = known.people["ada"]
    assert ada.slug == "ada-example"
    plain = client.get(f"/researchers/{ada.pk}/graph/")
    slugged = client.get(f"/researchers/{ada.pk}-ada-example/graph/")
    assert plain.status_code == slugged.status_code == 200
    assert "Research graph of Ada Example" in slugged.content.decode()


def test_a_wrong_slug_redirects_to_the_right_one_keeping_the_filters(client, known):
    ada = known.people["ada"]
    response = client.get(f"/researchers/{ada.pk}-someone-else/graph/", {"min_joint": 1})
    assert response.status_code == 301
    assert response["Location"] == f"/researchers/{ada.pk}-ada-example/graph/?min_joint=1"


def test_a_merged_or_unknown_researcher_under_a_slug(client, known):
    cy, bob = known.people["cy"], known.people["bob"]
    cy.merged_into = bob
    cy.save(update_fields=["merged_into"])
    response = client.get(f"/researchers/{cy.pk}-cy-example/graph/")
    # A merge can be undone: not a redirect browsers keep.
    assert response.status_code == 302 and response["Location"] == f"/researchers/{bob.pk}/graph/"
    assert client.get("/researchers/999999-nobody/graph/").status_code == 404


def test_the_work_explorer_answers_under_the_slugged_address(client, known):
    work = known.works["w1"]
    assert work.slug == "work-w1"
    assert client.get(f"/works/{work.pk}-work-w1/graph/").status_code == 200
    response = client.get(f"/works/{work.pk}-another-title/graph/")
    assert (
        response.status_code == 301 and response["Location"] == f"/works/{work.pk}-work-w1/graph/"
    )
