"""The snapshot on researcher pages, the /trust/ page and the trust API."""

import html as html_module
import re

import pytest
from django.template.loader import get_template
from django.utils import timezone

from catalogue.models import Author
from profiles.models import Claim
from tests.factories import AuthorFactory, AuthorshipFactory, UserFactory, WorkFactory
from trust import services, weights
from trust.models import TrustScore, TrustScoreHistory
from trust.panels import trust_panel

pytestmark = pytest.mark.django_db

ERROR_KEYS = {"status", "code", "message", "details"}


def scored(**fields) -> Author:
    author = AuthorFactory(openalex_id="A5023888391", **fields)
    for year in (2019, 2021, 2024):
        AuthorshipFactory(author=author, work=WorkFactory(publication_year=year, cited_by_count=12))
    services.trust_scores_recompute(author_ids=[author.pk], reason="import")
    return author


def render_snapshot(author) -> str:
    """The snapshot as the researcher page's selector and template build it."""
    return get_template("trust/_snapshot.html").render(
        {"author": author, "snapshot": trust_panel(author)}
    )


def text(html: str) -> str:
    return html_module.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


# The snapshot ------------------------------------------------------------------------------


def test_snapshot_shows_score_tier_level_claim_status_and_why(django_assert_max_num_queries):
    author = scored()
    stored = TrustScore.objects.get(author=author)
    fresh = Author.objects.get(pk=author.pk)
    with django_assert_max_num_queries(2):
        html = render_snapshot(fresh)
    words = text(html)
    assert f"Trust {stored.score} - {stored.get_tier_display()}" in words
    assert "Verification L1" in words
    assert "Unclaimed author" in words
    assert "<details" in html and "Why this score" in words
    for group in ("Identity", "Record", "Community", "Activity", "Penalties"):
        assert group in words
    for weight in weights.WEIGHTS.values():
        assert weight.label in words, weight.key
    assert "https://openalex.org/A5023888391" in html
    assert f'href="{author.get_absolute_url()}#works"' in html
    assert '<svg class="sparkline"' in html and "One computation so far" in words


def test_snapshot_takes_one_query_when_the_score_was_selected_with_the_author(
    django_assert_num_queries,
):
    author = scored()
    loaded = Author.objects.select_related("trust").get(pk=author.pk)
    with django_assert_num_queries(1):  # the history only
        render_snapshot(loaded)


def test_snapshot_history_draws_a_line_once_the_score_changed(staff):
    author = scored()
    Claim.objects.create(
        user=UserFactory(),
        author=author,
        method="evidence",
        status="approved",
        reviewer=staff,
        decided_at=timezone.now(),
    )
    services.trust_scores_recompute(author_ids=[author.pk], reason="claim changed")
    html = render_snapshot(Author.objects.get(pk=author.pk))
    assert "<polyline" in html
    assert "2 recorded scores, from" in text(html)
    assert "Verification L4" in text(html)
    assert "Claimed, reviewed by staff" in text(html)


def test_unscored_author_says_not_computed_yet(django_assert_max_num_queries):
    author = AuthorFactory()
    with django_assert_max_num_queries(1):
        html = render_snapshot(author)
    assert "Trust score not computed yet." in text(html)
    assert not TrustScore.objects.filter(author=author).exists()  # nothing computed in the page


def test_imported_text_in_evidence_is_escaped():
    author = AuthorFactory(display_name="<script>alert(1)</script>")
    AuthorshipFactory(
        author=author, work=WorkFactory(title="<img src=x onerror=alert(1)>", is_retracted=True)
    )
    services.trust_scores_recompute(author_ids=[author.pk])
    html = render_snapshot(Author.objects.get(pk=author.pk))
    assert "<img src=x" not in html and "&lt;img src=x" in html


def test_researcher_page_includes_the_snapshot(client):
    author = scored()
    response = client.get(author.get_absolute_url())
    assert response.status_code == 200
    assert 'class="panel trust-snapshot"' in response.content.decode()
    assert "Why this score" in response.content.decode()


# /trust/ -----------------------------------------------------------------------------------


def test_trust_page_explains_levels_tiers_every_weight_and_how_to_raise_it(client):
    scored()
    response = client.get("/trust/")
    assert response.status_code == 200
    words = text(response.content.decode())
    for number, label in weights.LEVELS.items():
        assert f"L{number} {label}." in words
    for _lowest, _, label in weights.TIERS:
        assert label in words
    assert "Emerging 0 to 29 1" in words  # one record scored, in the lowest tier
    assert "Established 30 to 59" in words and "Exemplary 80 to 100" in words
    for weight in weights.WEIGHTS.values():
        assert weight.label in words and weight.rule in words
    assert "How an owner can raise their score honestly" in words
    for step in ("Claim it.", "Add your ORCID iD.", "Fix misattributions."):
        assert step in words


# API ---------------------------------------------------------------------------------------


def test_api_answers_score_level_components_and_history(client):
    author = scored(orcid="0000-0002-1825-0097")
    body = client.get(f"/api/v1/authors/{author.pk}/trust/").json()
    stored = TrustScore.objects.get(author=author)
    assert body["author"] == author.pk
    assert (body["score"], body["tier"], body["level"]) == (stored.score, stored.tier, 2)
    assert body["level_label"] == weights.LEVELS[2]
    assert body["claim_status"] == "Unclaimed author"
    assert body["stored"] is True
    assert [c["key"] for c in body["components"]] == [c.key for c in weights.COMPONENTS]
    orcid = next(i for i in body["components"][0]["items"] if i["key"] == "orcid")
    assert (
        orcid["points"] == 8 and orcid["links"][0]["url"] == "https://orcid.org/0000-0002-1825-0097"
    )
    works = next(i for i in body["components"][1]["items"] if i["key"] == "works")
    assert works["links"][0]["url"] == f"http://testserver{author.get_absolute_url()}#works"
    assert [h["reason"] for h in body["history"]] == ["import"]


def test_api_scores_an_unscored_author_for_the_answer(client):
    author = AuthorFactory(openalex_id="A123")
    body = client.get(f"/api/v1/authors/{author.pk}/trust/").json()
    assert body["stored"] is False and body["computed_at"] is None
    assert body["level"] == 1 and body["score"] == 3
    assert body["history"] == []


def test_api_unknown_or_merged_author_answers_the_error_shape(client):
    target = AuthorFactory()
    merged = AuthorFactory(merged_into=target)
    for pk in (987654, merged.pk):
        response = client.get(f"/api/v1/authors/{pk}/trust/")
        assert response.status_code == 404
        assert set(response.json()["error"]) == ERROR_KEYS
        assert response.json()["error"]["code"] == "not_found"


def test_api_is_in_the_schema(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = schema["paths"]["/api/v1/authors/{id}/trust/"]["get"]
    assert operation["operationId"] == "authors_trust_retrieve"
    ref = operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert ref == "#/components/schemas/Trust"


def test_history_rows_are_only_for_changes():
    author = scored()
    services.trust_scores_recompute(author_ids=[author.pk], reason="nightly")
    assert TrustScoreHistory.objects.filter(author=author).count() == 1
