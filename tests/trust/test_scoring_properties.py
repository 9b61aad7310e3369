"""scoring.py, property-based: more positive evidence never lowers a score."""

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from trust import scoring
from trust.scoring import Signals

# Properties ----------------------------------------------------------------------------------

counts = st.integers(min_value=0, max_value=200_000)
small = st.integers(min_value=0, max_value=50)
claims = st.sampled_from(
    [
        ("", "", False),
        ("pending", "", False),
        ("disputed", "", False),
        ("approved", "email", False),
        ("approved", "orcid", False),
        ("approved", "evidence", True),
        ("approved", "orcid", True),
    ]
)


def claim_rank(status: str, method: str, reviewed: bool) -> int:
    """Staff review beats ORCID sign-in, which beats anything else (email alone included)."""
    if status == "approved" and reviewed:
        return 2
    return 1 if status == "approved" and method == "orcid" else 0


@st.composite
def signals(draw):
    claim_status, method, reviewed = draw(claims)
    first = draw(st.none() | st.integers(1950, 2026))
    last = None if first is None else draw(st.integers(first, 2026))
    return Signals(
        openalex_id=draw(st.sampled_from(["", "A5023888391"])),
        orcid=draw(st.sampled_from(["", "0000-0002-1825-0097"])),
        claim_status=claim_status,
        claim_method=method,
        claim_reviewed=reviewed,
        claim_orcid_matches=draw(st.booleans()),
        cross_source_works=draw(small),
        affiliation=draw(st.sampled_from(["", "U"])),
        works=draw(counts),
        venues=draw(counts),
        citations=draw(st.none() | counts),
        followers=draw(counts),
        claimed_collaborators=draw(small),
        first_year=first,
        last_year=last,
        recent_works=draw(small),
        this_year=2026,
        retracted=draw(small),
        disputes=draw(small),
        misattributions=draw(small),
    )


@st.composite
def more_positive_evidence(draw, base: Signals):
    """The same signals with only positive evidence added (penalties unchanged)."""
    claim_status, method, reviewed = draw(claims)
    if claim_rank(claim_status, method, reviewed) < claim_rank(
        base.claim_status, base.claim_method, base.claim_reviewed
    ):
        claim_status, method, reviewed = base.claim_status, base.claim_method, base.claim_reviewed
    first, last = base.first_year, base.last_year
    if first is None:
        first = draw(st.none() | st.integers(1950, 2026))
        last = None if first is None else draw(st.integers(first, 2026))
    else:
        first = draw(st.integers(1950, first))
        last = draw(st.integers(last, 2026))
    citations = base.citations
    if citations is None:
        citations = draw(st.none() | counts)
    else:
        citations += draw(counts)
    return replace(
        base,
        openalex_id=base.openalex_id or draw(st.sampled_from(["", "A1"])),
        orcid=base.orcid or draw(st.sampled_from(["", "0000-0002-1825-0097"])),
        claim_status=claim_status,
        claim_method=method,
        claim_reviewed=reviewed,
        claim_orcid_matches=base.claim_orcid_matches or draw(st.booleans()),
        cross_source_works=base.cross_source_works + draw(small),
        affiliation=base.affiliation or draw(st.sampled_from(["", "U"])),
        works=base.works + draw(counts),
        venues=base.venues + draw(counts),
        citations=citations,
        followers=base.followers + draw(counts),
        claimed_collaborators=base.claimed_collaborators + draw(small),
        first_year=first,
        last_year=last,
        recent_works=base.recent_works + draw(small),
    )


@settings(max_examples=400, deadline=None)
@given(signals())
def test_score_always_lies_between_0_and_100(s):
    result = scoring.score(s)
    assert 0 <= result.score <= 100
    assert result.tier == scoring.tier_for(result.score)
    assert 0 <= result.level <= 4


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_positive_evidence_never_lowers_score_or_level(data):
    before = data.draw(signals())
    after = data.draw(more_positive_evidence(before))
    assert scoring.score(after).score >= scoring.score(before).score
    assert scoring.score(after).level >= scoring.score(before).level
