"""Grouping bylines under constraints: cannot-links win, ids and ORCIDs decide."""

from identity import Byline, Thresholds, resolve

BANGOR = ("School of Computer Science, Bangor University, Bangor, UK",)
VIS = ("T-vis", "T-hci")


def _byline(number, name, coauthors=("Panagiotis D. Ritsos", "Joseph W. Mearman"), **extra):
    fields = {
        "affiliations": BANGOR,
        "topics": VIS,
        "venue": "IEEE Visualization",
        "year": 2016,
        "words": ("immersive analytics for heritage visualisation",),
    }
    fields.update(extra)
    return Byline(f"b{number}", name, f"W{number}", coauthors=coauthors, **fields)


def _people(resolution):
    return sorted(sorted(cluster) for cluster in resolution.clusters)


def test_strong_evidence_merges_name_variants():
    bylines = [
        _byline(1, "Jonathan C. Roberts"),
        _byline(2, "J.C. Roberts"),
        _byline(3, "Jonathan Roberts"),
    ]
    assert _people(resolve(bylines)) == [["b1", "b2", "b3"]]


def test_a_cannot_link_from_the_owner_wins_over_any_evidence():
    bylines = [_byline(1, "Jonathan C. Roberts"), _byline(2, "Jonathan C. Roberts")]
    resolution = resolve(bylines, cannot_link=[("b1", "b2")])
    assert _people(resolution) == [["b1"], ["b2"]]
    assert not resolution.candidates


def test_a_cannot_link_keeps_apart_what_a_third_byline_would_join():
    bylines = [_byline(n, "Jonathan C. Roberts") for n in (1, 2, 3)]
    resolution = resolve(bylines, cannot_link=[("b1", "b2")])
    clusters = {frozenset(c) for c in resolution.clusters}
    assert not any({"b1", "b2"} <= cluster for cluster in clusters)


def test_two_different_orcids_never_merge():
    bylines = [
        _byline(1, "Jonathan C. Roberts", orcid="0000-0001-8270-1234"),
        _byline(2, "Jonathan C. Roberts", orcid="https://orcid.org/0000-0002-1111-2222"),
        _byline(3, "Jonathan C. Roberts"),
    ]
    resolution = resolve(bylines)
    assert not [c for c in resolution.clusters if {"b1", "b2"} <= set(c)]
    for candidate in resolution.candidates:
        pair = set(resolution.clusters[candidate.left] + resolution.clusters[candidate.right])
        assert not {"b1", "b2"} <= pair


def test_one_orcid_joins_bylines_whatever_else_they_say():
    bylines = [
        _byline(1, "Jonathan C. Roberts", orcid="0000-0001-8270-1234", coauthors=()),
        _byline(
            2,
            "J. Roberts",
            orcid="0000-0001-8270-1234",
            coauthors=(),
            affiliations=(),
            topics=("T-other",),
            venue="",
        ),
    ]
    assert _people(resolve(bylines)) == [["b1", "b2"]]


def test_two_authors_of_one_work_are_never_one_person():
    first = Byline("x1", "J. Smith", "W1", coauthors=("John Smith",), topics=VIS)
    second = Byline("x2", "John Smith", "W1", coauthors=("J. Smith",), topics=VIS)
    assert _people(resolve([first, second])) == [["x1"], ["x2"]]


def test_one_source_author_id_joins_and_two_stay_candidates():
    bylines = [
        _byline(1, "Jonathan C. Roberts", source_author_id="A1"),
        _byline(2, "J. C. Roberts", source_author_id="A1", coauthors=(), affiliations=()),
        _byline(3, "Jonathan C. Roberts", source_author_id="A2"),
    ]
    resolution = resolve(bylines)
    assert _people(resolution) == [["b1", "b2"], ["b3"]]
    assert len(resolution.candidates) == 1
    candidate = resolution.candidates[0]
    assert candidate.score >= Thresholds().merge
    assert "2 shared co-authors" in candidate.reasons


def test_a_shared_orcid_outweighs_two_source_ids():
    bylines = [
        _byline(1, "Jonathan C. Roberts", source_author_id="A1", orcid="0000-0001-8270-1234"),
        _byline(2, "Jonathan C. Roberts", source_author_id="A2", orcid="0000-0001-8270-1234"),
    ]
    assert _people(resolve(bylines)) == [["b1", "b2"]]


def test_complete_linkage_is_available():
    bylines = [_byline(n, "Jonathan C. Roberts") for n in (1, 2, 3)]
    resolution = resolve(bylines, thresholds=Thresholds(linkage="complete"))
    assert _people(resolution) == [["b1", "b2", "b3"]]


def test_must_links_chain_through_orcid_and_source_id_unless_forbidden():
    bare = {"coauthors": (), "affiliations": (), "topics": (), "venue": ""}
    bylines = [
        _byline(1, "J. Roberts", orcid="0000-0001-8270-1234", **bare),
        _byline(2, "Jonathan Roberts", orcid="0000-0001-8270-1234", source_author_id="A9", **bare),
        _byline(3, "J. C. Roberts", source_author_id="A9", **bare),
    ]
    assert _people(resolve(bylines)) == [["b1", "b2", "b3"]]
    kept_apart = resolve(bylines, cannot_link=[("b1", "b3")])
    assert _people(kept_apart) == [["b1", "b2"], ["b3"]]
