"""Two ids, one person, on real recordings: the people OpenAlex split are raised as candidates.

The recordings hold three people OpenAlex keeps under two author ids each, with
a co-author in common across the two: Jeff Dean ("Jeffrey Dean" on the GNMT
paper, under the id of Jay B. Dean, with his ORCID), Jonathan C. Roberts
("J.C. Roberts" under an id labelled "Joel Roberts") and Andrew T. Wilson
("A. Wilson" under an id labelled "Andrew Wilson"). The labels and ORCIDs of
those second ids are OpenAlex's guesses at who the printed initials are; the
bylines are what the works say.
"""

import pytest
from django.db.models import Count

from catalogue.models import Author, Authorship, MergeCandidate, SplitProposal
from identity.names import INCOMPATIBLE, compatible
from ingestion.people.resolving import all_blocks, resolve_blocks
from tests.ingestion.sources.facts import run_file

pytestmark = pytest.mark.django_db

FILES = (
    (
        "openalex",
        "works__filter-cited_by-W3046863325-W3045921891__cursor-first-page__per-page-200__2025-11.json",
        ".json",
    ),
    ("openalex", "works__filter-author.id-A5017898742__page-1__per_page-50__2025-10.json", ".json"),
    (
        "openalex",
        "works__filter-authorships.author.id-A5017898742__per_page-5__page-1-of-2__2025-10.json",
        ".json",
    ),
    ("openalex", "works__W2741809807__2025-06.json", ".json"),
    (
        "openalex",
        "works__filter-title.search-PaperQA-Retrieval-Augmented-Generative-Agent__2025-09.json",
        ".json",
    ),
    ("openalex", "snapshot/works__updated_date=2021-11-03__part_000.jsonl", ".jsonl"),
    ("arxiv", "query__all-testing__start-0__max-100__2026-04.atom.xml", ".atom"),
)
SPLIT_BY_OPENALEX = [
    ("A5011889606", "A5043872671"),  # Jeff Dean / "Jeffrey Dean" (labelled Jay B. Dean)
    ("A5009341822", "A5032230089"),  # Jonathan C. Roberts / "J.C. Roberts" (labelled Joel)
    ("A5101495888", "A5103202491"),  # Andrew T. Wilson / "A. Wilson" (labelled Andrew)
]


@pytest.fixture
def resolved(tmp_path, real_fixtures):
    for folder, name, suffix in FILES:
        text = (real_fixtures / folder / name).read_text(encoding="utf-8")
        run = run_file(tmp_path, text, suffix)
        assert run.status == "succeeded", (name, run.error)
    return resolve_blocks(all_blocks())


def _pair(left: str, right: str) -> MergeCandidate | None:
    ids = {
        Author.objects.get(openalex_id=left).pk,
        Author.objects.get(openalex_id=right).pk,
    }
    return MergeCandidate.objects.filter(
        kind=MergeCandidate.Kind.AUTHOR, author_a_id=min(ids), author_b_id=max(ids)
    ).first()


def _printed(author_id: int) -> set[str]:
    return set(Authorship.objects.filter(author_id=author_id).values_list("raw_name", flat=True))


def test_the_people_openalex_split_are_raised_with_their_evidence(resolved):
    assert resolved["candidates"] >= len(SPLIT_BY_OPENALEX)
    for left, right in SPLIT_BY_OPENALEX:
        candidate = _pair(left, right)
        assert candidate is not None, (left, right)
        assert candidate.status == MergeCandidate.Status.OPEN
        assert "shared co-author" in candidate.reason, candidate.reason
        assert candidate.score >= 0.5
    # Raised, not merged: two ids are proved one person only by one ORCID.
    for left, right in SPLIT_BY_OPENALEX:
        for openalex_id in (left, right):
            assert Author.objects.get(openalex_id=openalex_id).merged_into_id is None


def test_no_candidate_pairs_names_that_cannot_be_one_person(resolved):
    # Names as the works print them: a source's label of a record may be its guess.
    candidates = MergeCandidate.objects.filter(kind=MergeCandidate.Kind.AUTHOR)
    assert candidates.exists()
    for candidate in candidates:
        left, right = _printed(candidate.author_a_id), _printed(candidate.author_b_id)
        for a in left:
            for b in right:
                assert compatible(a, b) != INCOMPATIBLE, (candidate.reason, a, b)


def test_no_record_of_one_person_is_proposed_for_a_split(resolved):
    checked = Author.objects.visible().annotate(n=Count("authorships")).filter(n__gte=4)
    assert checked.count() >= 5  # records the split check read
    assert resolved["splits"] == 0
    assert not SplitProposal.objects.exists()
