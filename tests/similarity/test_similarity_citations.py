"""More like this weighs what works cite and who cites them, and says so."""

from __future__ import annotations

import pytest

import similarity
from catalogue.models import Citation, Work, WorkSimilarity
from tests.factories import WorkFactory

pytestmark = pytest.mark.django_db


def cite(citing: Work, cited_openalex_id: str, cited: Work | None = None) -> None:
    Citation.objects.create(
        citing=citing,
        citing_openalex_id=f"W{citing.pk}0",
        cited_openalex_id=cited_openalex_id,
        cited=cited,
    )


def untitled(n: int) -> Work:
    # Titles with no word in common: text, topics and authors say nothing.
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    return WorkFactory(title=f"{words[n]} {words[n]}ness", abstract="")


def reasons_of(work: Work, other: Work) -> list[str]:
    link = WorkSimilarity.objects.get(work=work, similar=other)
    return [reason["label"] for reason in link.reasons]


def test_works_citing_the_same_works_match_with_the_count_as_reason():
    one, two, three = untitled(0), untitled(1), untitled(2)
    for number in range(4):  # not held here: coupling counts OpenAlex ids
        cite(one, f"W9{number}")
        cite(two, f"W9{number}")
    cite(three, "W99")
    similarity.similarities_compute_all()
    assert reasons_of(one, two) == ["cites 4 of the same works"]
    assert not WorkSimilarity.objects.filter(work=one, similar=three).exists()


def test_works_cited_together_match_with_the_count_as_reason():
    one, two, lone = untitled(0), untitled(1), untitled(2)
    for n in range(3, 6):
        citing = untitled(n)
        cite(citing, "W1", one)
        Citation.objects.create(
            citing=citing, citing_openalex_id=f"W{citing.pk}0", cited_openalex_id="W2", cited=two
        )
    similarity.similarities_compute_all()
    assert "cited together by 3 works" in reasons_of(one, two)
    assert not WorkSimilarity.objects.filter(work=one, similar=lone).exists()


def test_more_shared_references_rank_higher_and_text_still_counts():
    base, close, far = untitled(0), untitled(1), untitled(2)
    for number in range(6):
        cite(base, f"W8{number}")
        cite(close, f"W8{number}")
    cite(far, "W80")
    similarity.similarities_compute_all()
    ranked = list(
        WorkSimilarity.objects.filter(work=base)
        .order_by("-score")
        .values_list("similar", flat=True)
    )
    assert ranked[0] == close.pk
    assert similarity.citation_weight(6) > similarity.citation_weight(1) > 0
    assert similarity.citation_weight(0) == 0
