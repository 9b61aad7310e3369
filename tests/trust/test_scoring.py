"""scoring.py: each component, the caps, the penalties, the tier edges and each level."""

import itertools
from dataclasses import replace

import pytest

from trust import scoring, weights
from trust.models import Level, Tier
from trust.scoring import Link, Signals
from trust.weights import WEIGHTS


def items(result: scoring.Result) -> dict[str, scoring.Item]:
    return {item.key: item for group in result.components for item in group.items}


def group(result: scoring.Result, key: str) -> scoring.Group:
    return next(g for g in result.components if g.key == key)


BARE = Signals(this_year=2026)


# The weights table ------------------------------------------------------------------


def test_component_maxima_are_the_sums_of_their_items_and_add_up_to_100():
    for component, items in weights.weights_by_component():
        assert component.maximum == sum(w.maximum for w in items), component.key
    assert sum(c.maximum for c in weights.COMPONENTS) == 100


def test_tier_and_level_values_match_the_models():
    assert {value for _, value, _ in weights.TIERS} == set(Tier.values)
    assert set(weights.LEVELS) == set(Level.values)


def test_every_weight_is_listed_once_in_the_score():
    result = scoring.score(BARE)
    assert sorted(items(result)) == sorted(WEIGHTS)


def test_a_bare_name_scores_zero_at_level_zero():
    result = scoring.score(BARE)
    assert (result.score, result.tier, result.level) == (0, "emerging", 0)
    assert result.claim_status == "Unclaimed author"
    assert items(result)["claim"].evidence == "Nobody has claimed this record yet."


# Identity ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "points", "level"),
    [
        ({"claim_status": "pending", "claim_method": ""}, 0, 0),
        ({"claim_status": "disputed"}, 0, 0),
        ({"claim_status": "approved", "claim_method": "orcid"}, 16, 3),
        # An institutional email approved without staff (the former rule) proves nothing.
        ({"claim_status": "approved", "claim_method": "email"}, 0, 0),
        ({"claim_status": "pending", "claim_method": "email"}, 0, 0),
        ({"claim_status": "approved", "claim_method": "email", "claim_reviewed": True}, 20, 4),
        ({"claim_status": "approved", "claim_method": "evidence", "claim_reviewed": True}, 20, 4),
        ({"claim_status": "approved", "claim_method": "orcid", "claim_reviewed": True}, 20, 4),
    ],
)
def test_claim_points_and_level(claim, points, level):
    result = scoring.score(replace(BARE, **claim))
    assert items(result)["claim"].points == points
    assert result.level == level


def test_claim_evidence_says_how_it_was_proved():
    orcid = scoring.score(replace(BARE, claim_status="approved", claim_method="orcid"))
    assert "ORCID sign-in" in items(orcid)["claim"].evidence
    assert orcid.claim_status == "Claimed and verified"
    staff = scoring.score(
        replace(BARE, claim_status="approved", claim_method="evidence", claim_reviewed=True)
    )
    assert "evidence reviewed by staff" in items(staff)["claim"].evidence
    assert staff.claim_status == "Claimed, reviewed by staff"
    pending = scoring.score(replace(BARE, claim_status="pending"))
    assert pending.claim_status == "Claim pending review"


def test_orcid_on_record_gives_points_a_link_and_level_two():
    result = scoring.score(replace(BARE, orcid="0000-0002-1825-0097"))
    item = items(result)["orcid"]
    assert item.points == 8
    assert item.links == [
        Link("ORCID 0000-0002-1825-0097", "https://orcid.org/0000-0002-1825-0097")
    ]
    assert result.level == 2


def test_openalex_id_gives_level_one_and_links_only_real_openalex_pages():
    real = scoring.score(
        replace(BARE, openalex_id="A5023888391", openalex_url="https://openalex.org/A5023888391")
    )
    assert items(real)["source_id"].points == 3
    assert items(real)["source_id"].links[0].url == "https://openalex.org/A5023888391"
    assert real.level == 1
    local = scoring.score(replace(BARE, openalex_id="A8000000001"))
    assert items(local)["source_id"].points == 3
    assert items(local)["source_id"].links == []


def test_ids_agree_when_both_sources_list_works_under_an_openalex_record():
    with_id = replace(BARE, openalex_id="A1", cross_source_works=3)
    result = scoring.score(with_id)
    assert items(result)["ids_agree"].points == 6
    assert "3 works listed by both OpenAlex and arXiv" in items(result)["ids_agree"].evidence
    assert result.level == 2
    # Without an OpenAlex id there is nothing the arXiv listing agrees with.
    without = scoring.score(replace(BARE, cross_source_works=3))
    assert items(without)["ids_agree"].points == 0
    assert without.level == 0


def test_ids_agree_when_the_claimant_signed_in_with_the_records_orcid():
    result = scoring.score(replace(BARE, orcid="0000-0002-1825-0097", claim_orcid_matches=True))
    assert items(result)["ids_agree"].points == 6
    assert "signed in with the record's ORCID" in items(result)["ids_agree"].evidence


def test_affiliation_imported():
    result = scoring.score(replace(BARE, affiliation="University of Examples"))
    assert items(result)["affiliation"].points == 3
    assert "University of Examples" in items(result)["affiliation"].evidence
    assert items(scoring.score(BARE))["affiliation"].evidence == "Affiliation not imported."


def test_identity_is_capped_at_forty():
    full = replace(
        BARE,
        openalex_id="A1",
        orcid="0000-0002-1825-0097",
        claim_status="approved",
        claim_method="evidence",
        claim_reviewed=True,
        cross_source_works=10,
        affiliation="U",
    )
    assert group(scoring.score(full), "identity").points == 40


# Record: log scales and caps -------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "field", "count", "points"),
    [
        ("works", "works", 0, 0),
        ("works", "works", 1, 2),  # 12 * log 2 / log 101 = 1.80
        ("works", "works", 13, 7),  # 6.87
        ("works", "works", 100, 12),
        ("works", "works", 5000, 12),  # capped
        ("venues", "venues", 5, 4),  # 8 * log 6 / log 31 = 4.17
        ("venues", "venues", 30, 8),
        ("venues", "venues", 300, 8),
        ("citations", "citations", 100, 8),  # 15 * log 101 / log 10001 = 7.52
        ("citations", "citations", 10_000, 15),
        ("citations", "citations", 2_000_000, 15),
    ],
)
def test_record_items_grow_on_a_log_scale_up_to_their_cap(key, field, count, points):
    result = scoring.score(replace(BARE, **{field: count}))
    assert items(result)[key].points == points


def test_log_scale_keeps_giants_from_dwarfing_everyone():
    modest = scoring.score(replace(BARE, works=30, venues=10, citations=500))
    giant = scoring.score(replace(BARE, works=3000, venues=900, citations=500_000))
    assert group(giant, "record").points == 35
    # A hundred times the record earns far less than twice the points.
    assert group(giant, "record").points < 2 * group(modest, "record").points


def test_unknown_citations_earn_nothing_and_say_so():
    item = items(scoring.score(replace(BARE, citations=None)))["citations"]
    assert item.points == 0
    assert "No source gave citation counts" in item.evidence


def test_works_link_to_the_published_work_section():
    item = items(scoring.score(replace(BARE, works=4, works_url="/researchers/1-ada/#works")))[
        "works"
    ]
    assert item.links == [Link("Published work", "/researchers/1-ada/#works")]
    assert item.evidence == "4 works."


# Community -------------------------------------------------------------------------------


def test_followers_on_a_log_scale():
    assert items(scoring.score(replace(BARE, followers=1)))["followers"].points == 1
    assert items(scoring.score(replace(BARE, followers=100)))["followers"].points == 8
    assert items(scoring.score(replace(BARE, followers=10_000)))["followers"].points == 8


def test_claimed_collaborators_one_point_each_up_to_four_with_links():
    links = (
        Link("Bo Example", "/researchers/2-bo-example/"),
        Link("Cy Example", "/researchers/3-cy/"),
    )
    result = scoring.score(replace(BARE, claimed_collaborators=2, collaborator_links=links))
    item = items(result)["claimed_collaborators"]
    assert item.points == 2
    assert item.links == list(links)
    assert "Bo Example, Cy Example" in item.evidence
    many = scoring.score(replace(BARE, claimed_collaborators=9, collaborator_links=links))
    assert items(many)["claimed_collaborators"].points == 4
    assert "and 7 more" in items(many)["claimed_collaborators"].evidence
    assert group(many, "community").maximum == 12


# Activity --------------------------------------------------------------------------------


def test_years_active_linear_to_twenty_years():
    assert (
        items(scoring.score(replace(BARE, first_year=2020, last_year=2020)))["years_active"].points
        == 0
    )
    assert (
        items(scoring.score(replace(BARE, first_year=2017, last_year=2026)))["years_active"].points
        == 4
    )
    assert (
        items(scoring.score(replace(BARE, first_year=1990, last_year=2026)))["years_active"].points
        == 7
    )
    text = items(scoring.score(replace(BARE, first_year=2017, last_year=2026)))[
        "years_active"
    ].evidence
    assert text == "Works from 2017 to 2026: 10 years active."


def test_recent_work_one_point_each_up_to_six():
    assert items(scoring.score(replace(BARE, recent_works=2)))["recent_work"].points == 2
    assert items(scoring.score(replace(BARE, recent_works=40)))["recent_work"].points == 6
    assert (
        "from 2024 to 2026"
        in items(scoring.score(replace(BARE, recent_works=2)))["recent_work"].evidence
    )


# Penalties -------------------------------------------------------------------------------

STRONG = Signals(
    openalex_id="A1",
    orcid="0000-0002-1825-0097",
    claim_status="approved",
    claim_method="orcid",
    affiliation="U",
    works=60,
    venues=20,
    citations=3000,
    followers=20,
    first_year=2005,
    last_year=2026,
    recent_works=4,
    this_year=2026,
)


@pytest.mark.parametrize(
    ("field", "count", "points"),
    [
        ("retracted", 1, -10),
        ("retracted", 3, -30),
        ("retracted", 8, -30),
        ("disputes", 1, -5),
        ("disputes", 5, -10),
        ("misattributions", 2, -8),
        ("misattributions", 10, -12),
    ],
)
def test_penalties_take_points_down_to_their_floor(field, count, points):
    key = {"retracted": "retracted", "disputes": "disputes", "misattributions": "misattributions"}[
        field
    ]
    # Disputes cost a record points only while nobody holds it by an approved claim.
    base = replace(STRONG, claim_status="disputed") if field == "disputes" else STRONG
    before = scoring.score(base)
    after = scoring.score(replace(base, **{field: count}))
    assert items(after)[key].points == points
    assert after.score == before.score + points


def test_penalties_link_to_the_works_concerned():
    link = Link("A retracted paper", "/works/9-a-retracted-paper/")
    result = scoring.score(replace(STRONG, retracted=1, retracted_links=(link,)))
    assert items(result)["retracted"].links == [link]
    assert items(result)["retracted"].evidence == "1 retracted work."
    assert group(result, "penalties").floor == -52


def test_score_never_goes_below_zero():
    result = scoring.score(replace(BARE, works=1, retracted=5, disputes=3, misattributions=5))
    assert result.score == 0
    assert group(result, "penalties").points == -52


# Tiers and levels -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "tier"),
    [
        (0, "emerging"),
        (29, "emerging"),
        (30, "established"),
        (59, "established"),
        (60, "trusted"),
        (79, "trusted"),
        (80, "exemplary"),
        (100, "exemplary"),
    ],
)
def test_tier_edges(score, tier):
    assert scoring.tier_for(score) == tier


def _scoring_exactly(target: int) -> Signals:
    """Some signals whose score is ``target``, found by walking a few counts upwards."""
    base = replace(BARE, openalex_id="A1", orcid="0000-0002-1825-0097", affiliation="U")
    claimed = {"claim_status": "approved", "claim_method": "evidence", "claim_reviewed": True}
    rich = {**claimed, "venues": 30, "followers": 100, "first_year": 2000, "last_year": 2026}
    for claim, citations in itertools.product(({}, claimed, rich), (0, 30, 300, 3000, 10_000)):
        for works, recent in itertools.product(range(101), range(7)):
            signals = replace(base, works=works, recent_works=recent, citations=citations, **claim)
            if scoring.score(signals).score == target:
                return signals
    raise AssertionError(f"no signals found for {target}")


@pytest.mark.parametrize(
    ("target", "tier"),
    [
        (29, "emerging"),
        (30, "established"),
        (59, "established"),
        (60, "trusted"),
        (79, "trusted"),
        (80, "exemplary"),
    ],
)
def test_tier_edges_through_the_whole_score(target, tier):
    result = scoring.score(_scoring_exactly(target))
    assert result.score == target
    assert result.tier == tier


@pytest.mark.parametrize(
    ("signals", "level"),
    [
        (BARE, 0),
        (replace(BARE, openalex_id="A1"), 1),
        (replace(BARE, openalex_id="A1", orcid="0000-0002-1825-0097"), 2),
        (replace(BARE, openalex_id="A1", cross_source_works=1), 2),
        (replace(BARE, openalex_id="A1", claim_status="approved", claim_method="orcid"), 3),
        (replace(BARE, openalex_id="A1", claim_status="approved", claim_method="email"), 1),
        (replace(BARE, claim_status="approved", claim_method="email", claim_reviewed=True), 4),
        (replace(BARE, claim_status="approved", claim_method="evidence", claim_reviewed=True), 4),
    ],
)
def test_each_level(signals, level):
    assert scoring.score(signals).level == level
    assert scoring.level_for(signals) == level


def test_points_add_up_to_the_score():
    result = scoring.score(replace(STRONG, retracted=1))
    assert result.score == sum(i.points for i in items(result).values())
    assert all(g.points == sum(i.points for i in g.items) for g in result.components)


def test_components_are_stored_small_and_expanded_from_the_weights_table():
    import json

    result = scoring.score(
        replace(STRONG, retracted_links=(Link("x", "/works/1-x/"),), retracted=1)
    )
    stored = result.components_json()
    assert json.loads(json.dumps(stored)) == stored
    assert stored[-1]["items"][0] == {
        "key": "retracted",
        "points": -10,
        "evidence": "1 retracted work.",
        "links": [{"label": "x", "url": "/works/1-x/"}],
    }
    expanded = scoring.expand_components(stored)
    assert [g["label"] for g in expanded] == [c.label for c in weights.COMPONENTS]
    assert [g["maximum"] for g in expanded] == [40, 35, 12, 13, 0]
    assert expanded[-1]["floor"] == -52
    claim = expanded[0]["items"][0]
    assert (claim["label"], claim["maximum"], claim["points"]) == ("Claim", 20, 16)
    assert claim["links"] == []
    # An item whose weight was since removed still shows, under its key.
    old = scoring.expand_components(
        [
            {
                "key": "record",
                "points": 2,
                "items": [{"key": "gone", "points": 2, "evidence": "An old item."}],
            }
        ]
    )
    assert old[0]["items"][0]["label"] == "gone"
