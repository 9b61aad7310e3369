"""One person is one record: corrections make no ghosts, arXiv-only works find their author."""

import re
from datetime import date

import pytest
from django.db import transaction

import curation
from catalogue.models import (
    Author,
    Authorship,
    LinkConstraint,
    MergeCandidate,
    UnlinkedAuthorship,
    Work,
)
from catalogue.selectors import work_for_page, work_page
from exports import lists as list_exports
from exports import work as exports
from ingestion.ingest.works import ingest_works
from ingestion.sources.arxiv import mapping as arxiv
from ingestion.sources.openalex import mapping as openalex
from profiles.claims import ownership
from profiles.models import Profile
from tests.factories import AuthorFactory, AuthorshipFactory, UserFactory
from tests.profiles.claim_people import holds, person

pytestmark = pytest.mark.django_db

GENNADY = "Gennady Pekhimenko"
GENNADY_ID = "A5000000001"


def openalex_work(number: int, title: str, authors, *, arxiv_id: str = "", cited: int = 1):
    """An OpenAlex work; ``authors`` are (A id or None, name). An arXiv id makes it a preprint."""
    work = {
        "id": f"https://openalex.org/W80000000{number:02d}",
        "title": title,
        "publication_year": 2021,
        "type": "article",
        "cited_by_count": cited,
        "authorships": [
            {
                "author_position": "first" if n == 0 else "middle",
                "author": {
                    "id": f"https://openalex.org/{aid}" if aid else None,
                    "display_name": name,
                },
                "raw_author_name": name,
            }
            for n, (aid, name) in enumerate(authors)
        ],
    }
    if arxiv_id:
        work["doi"] = f"https://doi.org/10.48550/arxiv.{arxiv_id}"
    return work


def arxiv_entry(arxiv_id: str, title: str, names, *, categories=(), summary="A study."):
    return {
        "id": f"http://arxiv.org/abs/{arxiv_id}v1",
        "arxiv_id": arxiv_id,
        "title": title,
        "summary": summary,
        "authors": [{"name": name, "affiliations": []} for name in names],
        "published": "2021-06-01T00:00:00Z",
        "updated": "2021-06-01T00:00:00Z",
        "primary_category": categories[0] if categories else None,
        "categories": list(categories),
        "links": [],
    }


def ingest(*payloads):
    """Write the payloads as one batch, the way one page of an import is written."""
    items = [(p, arxiv.map_entry(p) if "arxiv_id" in p else openalex.map_work(p)) for p in payloads]
    with transaction.atomic():
        return ingest_works(items)


def records(name: str):
    return Author.objects.visible().filter(display_name=name)


def byline(work: Work) -> list[tuple[str, bool]]:
    """The work page's byline: (name, linked to a record)."""
    page = work_page(work_for_page(work.pk), today=date.today())
    return [(b.name, b.author is not None) for b in page.bylines]


# 1. Corrections make no ghosts ------------------------------------------------------------


@pytest.fixture
def gennady_with_disowned_works():
    """Gennady's record with three works, then "not mine" on two of them by the owner."""
    works = [openalex_work(n, f"Paper {n}", [(GENNADY_ID, GENNADY)]) for n in range(1, 4)]
    works[1]["authorships"].insert(0, {"author": {"id": None, "display_name": "Hongyu Zhu"}})
    ingest(*works)
    author = records(GENNADY).get()
    owner = person("gennady")
    holds(owner, author)
    profile = Profile.objects.get(author=author)
    for n in (2, 3):
        work = Work.objects.get(openalex_id=f"W80000000{n:02d}")
        ownership.work_disown(profile=profile, work=work, actor=owner)
    return author, works


def test_reimporting_changed_disowned_works_spawns_no_namesake(gennady_with_disowned_works):
    author, works = gennady_with_disowned_works
    for work in works[1:]:
        work["cited_by_count"] = 40  # a changed version: it is read again
        work["title"] += " (revised)"
    ingest(*works[1:])
    ingest(
        arxiv_entry("2101.00002", "Paper 2 (revised)", ["Hongyu Zhu", GENNADY]),
    )  # and the same work from arXiv, known by its title, year and first author

    assert list(records(GENNADY)) == [author]
    assert Author.objects.filter(normalized_name=author.normalized_name).count() == 1
    assert not MergeCandidate.objects.exists()
    second = Work.objects.get(openalex_id="W8000000002")
    assert byline(second) == [("Hongyu Zhu", True), (GENNADY, False)]
    assert UnlinkedAuthorship.objects.filter(work=second, raw_name=GENNADY).exists()
    assert set(author.works.values_list("openalex_id", flat=True)) == {"W8000000001"}


def test_an_unlinked_name_keeps_its_place_in_lists_exports_feeds_and_the_api(
    gennady_with_disowned_works, client
):
    _, works = gennady_with_disowned_works
    works[1]["cited_by_count"] = 40
    ingest(works[1])  # Gennady's position on the work he disowned is left unlinked
    second = Work.objects.get(openalex_id="W8000000002")
    zhu = Author.objects.get(display_name="Hongyu Zhu")

    page = client.get(zhu.get_absolute_url()).content.decode()
    item = page.split(f'id="work-{second.pk}-title"', 1)[1].split("</article>", 1)[0]
    assert '<span class="unlinked-author"' in item and GENNADY in item
    for extension in ("bib", "ris", "json"):
        response = client.get(f"/researchers/{zhu.pk}/export.{extension}")
        listed = b"".join(response.streaming_content).decode()
        assert "Pekhimenko" in listed, extension
    own = client.get(f"/works/{second.pk}/export.bib").content.decode()
    assert "Zhu, Hongyu and Pekhimenko, Gennady" in own
    feed = client.get(f"/researchers/{zhu.pk}/feed.atom").content.decode()
    # Each name is an author of its own, in byline order, the unlinked one included.
    entries = re.findall(r"<entry>.*?</entry>", feed, re.S)
    bylines = [re.findall(r"<author><name>([^<]+)</name>", entry) for entry in entries]
    assert any(names[:2] == ["Hongyu Zhu", GENNADY] for names in bylines), bylines
    data = client.get(f"/api/v1/works/{second.pk}/").json()
    assert [a["display_name"] for a in data["authorships"]] == ["Hongyu Zhu"]
    assert data["unlinked_authors"] == [{"position": 1, "raw_name": GENNADY, "source": "openalex"}]


def test_a_list_export_keys_a_work_by_its_unlinked_first_author(gennady_with_disowned_works):
    _, works = gennady_with_disowned_works
    works[2]["cited_by_count"] = 40
    ingest(works[2])  # Paper 3 now has only its unlinked first (and sole) author
    third = Work.objects.get(openalex_id="W8000000003")
    keys = list_exports.unique_keys(Work.objects.filter(pk=third.pk))
    assert keys[third.pk] == exports.citation_key(work_for_page(third.pk))
    assert keys[third.pk].startswith("pekhimenko2021")


def test_an_upheld_position_goes_to_the_namesake_staff_named(gennady_with_disowned_works):
    author, works = gennady_with_disowned_works
    third = Work.objects.get(openalex_id="W8000000003")
    namesake = AuthorFactory(display_name=GENNADY)
    staff = UserFactory(is_staff=True)
    AuthorshipFactory(author=namesake, work=third, position=0, source="staff")
    LinkConstraint.objects.create(
        kind="must_link", author=namesake, work=third, source="staff", created_by=staff
    )
    works[2]["cited_by_count"] = 41
    ingest(works[2])

    assert set(records(GENNADY)) == {author, namesake}
    assert list(third.authorships.values_list("author_id", flat=True)) == [namesake.pk]
    assert not UnlinkedAuthorship.objects.filter(work=third).exists()


def test_a_position_left_unlinked_is_taken_by_a_namesake_with_evidence(
    gennady_with_disowned_works,
):
    author, works = gennady_with_disowned_works
    # Another Gennady Pekhimenko who has worked with Hongyu Zhu is on record.
    other = AuthorFactory(display_name=GENNADY)
    zhu = Author.objects.get(display_name="Hongyu Zhu")
    AuthorshipFactory(author=other, position=1, work=AuthorshipFactory(author=zhu).work)
    works[1]["cited_by_count"] = 42
    ingest(works[1])
    second = Work.objects.get(openalex_id="W8000000002")
    assert byline(second) == [("Hongyu Zhu", True), (GENNADY, True)]
    assert second.authorships.get(position=1).author == other
    assert not UnlinkedAuthorship.objects.filter(work=second).exists()
    assert records(GENNADY).count() == 2


# 2. One person, one record: the arXiv-only work ------------------------------------------


def test_an_arxiv_only_work_joins_the_only_record_the_same_feed_names():
    ingest(
        openalex_work(1, "Moshpit SGD", [(GENNADY_ID, GENNADY)], arxiv_id="2103.03239"),
        openalex_work(2, "RL-Scope", [(GENNADY_ID, GENNADY)], arxiv_id="2102.04285"),
    )
    ingest(
        arxiv_entry("2103.03239", "Moshpit SGD", [GENNADY]),
        arxiv_entry("2207.07736", "Optimizing Data Collection in Deep RL", [GENNADY]),
        arxiv_entry("2102.04285", "RL-Scope", [GENNADY]),
    )
    author = records(GENNADY).get()
    assert author.works.count() == 3
    only = Authorship.objects.get(work__arxiv_id="2207.07736")
    assert only.author == author and only.source == "arxiv" and only.confidence < 0.9
    assert not MergeCandidate.objects.exists()


def test_two_namesakes_make_the_same_feed_no_evidence():
    ingest(openalex_work(1, "Moshpit SGD", [(GENNADY_ID, GENNADY)], arxiv_id="2103.03239"))
    other = AuthorFactory(display_name=GENNADY, openalex_id="A5000000077")
    ingest(
        arxiv_entry("2103.03239", "Moshpit SGD", [GENNADY]),
        arxiv_entry("2207.07736", "Optimizing Data Collection in Deep RL", [GENNADY]),
    )
    assert records(GENNADY).count() == 3  # staff decide, through candidates
    new = records(GENNADY).exclude(pk=other.pk).exclude(openalex_id=GENNADY_ID).get()
    raised = MergeCandidate.objects.filter(author_b=new, status="open")
    assert raised.count() == 2


def test_namesakes_one_batch_creates_apart_are_merge_candidates():
    # One feed, two works of an "Ada Lovelace" with nothing in common: two records
    # (the feed proves nothing), and staff are asked whether they are one person.
    ingest(
        arxiv_entry(
            "2001.00001", "Lattice bosons", ["Ada Lovelace", "Bo Li"], categories=["physics"]
        ),
        arxiv_entry("2001.00002", "Graph sorting", ["Ada Lovelace", "Cy Wu"], categories=["cs.DS"]),
    )
    first, second = records("Ada Lovelace").order_by("pk")
    raised = MergeCandidate.objects.get(kind="author", status="open")
    assert {raised.author_a, raised.author_b} == {first, second}


def test_an_arxiv_only_work_joins_the_namesake_who_shares_a_coauthor_by_name():
    ingest(
        openalex_work(1, "Daydream", [(None, "Hongyu Zhu"), (GENNADY_ID, GENNADY)]),
        openalex_work(2, "Another paper", [(GENNADY_ID, GENNADY)]),
    )
    AuthorFactory(display_name=GENNADY, openalex_id="A5000000077")  # a namesake, no shared work
    ingest(arxiv_entry("2207.07736", "A new preprint", ["Hongyu Zhu", GENNADY]))
    work = Work.objects.get(arxiv_id="2207.07736")
    assert work.authorships.get(position=1).author.openalex_id == GENNADY_ID
    assert records(GENNADY).count() == 2
    assert records("Hongyu Zhu").count() == 1


def test_an_arxiv_only_work_joins_the_namesake_who_shares_its_category():
    ingest(arxiv_entry("2001.00001", "First", ["Ada Lovelace"], categories=["cs.DC"]))
    first = records("Ada Lovelace").get()
    # A later feed with only the new work: no co-author, but the same arXiv category.
    ingest(arxiv_entry("2207.00002", "Second", ["Ada Lovelace"], categories=["cs.DC", "cs.LG"]))
    assert records("Ada Lovelace").get() == first
    assert first.works.count() == 2


# 3. Merge candidates stay true ---------------------------------------------------------------


@pytest.fixture
def three_adas():
    return [AuthorFactory(display_name="Ada Lovelace") for _ in range(3)]


def candidate(a, b):
    return MergeCandidate.objects.create(kind="author", author_a=a, author_b=b, reason="same name")


def test_after_a_merge_open_candidates_follow_the_surviving_record(three_adas):
    keep, gone, third = three_adas
    staff = UserFactory(is_staff=True)
    first = candidate(keep, gone)
    follows = candidate(gone, third)
    curation.merge_candidate_merge(candidate=first, actor=staff)

    follows.refresh_from_db()
    assert (follows.author_a, follows.author_b, follows.status) == (keep, third, "open")
    curation.merge_candidate_merge(candidate=follows, actor=staff)  # merging it works
    third.refresh_from_db()
    assert third.merged_into == keep


def test_a_candidate_that_would_repeat_a_pair_is_closed_not_raised_twice(three_adas):
    keep, gone, third = three_adas
    staff = UserFactory(is_staff=True)
    kept_pair = candidate(third, keep)
    repeat = candidate(gone, third)
    curation.author_merge(source=gone, target=keep, actor=staff)

    repeat.refresh_from_db()
    assert repeat.status == "superseded"
    pairs = MergeCandidate.objects.filter(status="open")
    assert list(pairs) == [kept_pair]


def test_undoing_the_merge_puts_the_followed_candidates_back(three_adas):
    keep, gone, third = three_adas
    staff = UserFactory(is_staff=True)
    moved = candidate(gone, third)
    closed = candidate(keep, gone)
    event = curation.author_merge(source=gone, target=keep, actor=staff)
    curation.audit_undo(event=event, actor=staff)
    moved.refresh_from_db()
    closed.refresh_from_db()
    assert (moved.author_a, moved.author_b, moved.status) == (gone, third, "open")
    assert closed.status == "open"


def test_a_stale_candidate_naming_a_merged_record_still_merges(three_adas):
    keep, gone, third = three_adas
    staff = UserFactory(is_staff=True)
    stale = candidate(gone, third)
    Author.objects.filter(pk=gone.pk).update(merged_into=keep)  # merged before candidates followed
    curation.merge_candidate_merge(candidate=stale, actor=staff)
    third.refresh_from_db()
    assert third.merged_into == keep


def test_work_candidates_follow_a_work_merge():
    ingest(
        openalex_work(1, "Kept", [(None, "Ada Lovelace")]),
        openalex_work(2, "Gone", [(None, "Ada Lovelace")]),
        openalex_work(3, "Third", [(None, "Ada Lovelace")]),
    )
    keep, gone, third = (Work.objects.get(title=t) for t in ("Kept", "Gone", "Third"))
    staff = UserFactory(is_staff=True)
    follows = MergeCandidate.objects.create(kind="work", work_a=third, work_b=gone, reason="t")
    curation.work_merge(source=gone, target=keep, actor=staff)
    follows.refresh_from_db()
    assert (follows.work_a, follows.work_b, follows.status) == (third, keep, "open")


# 4. Adding a missing work that a duplicate record holds --------------------------------------


def test_adding_a_work_a_duplicate_holds_takes_its_position(tmp_path):
    entry = arxiv_entry("2006.00001", "Notes on the engine", ["Charles Babbage", "Ada Lovelace"])
    ingest(entry)
    duplicate = records("Ada Lovelace").get()
    work = Work.objects.get(arxiv_id="2006.00001")
    ada = AuthorFactory(display_name="Ada Lovelace", openalex_id="A5000000001")
    owner = person("ada")
    holds(owner, ada)
    profile = Profile.objects.get(author=ada)

    ownership.work_add(profile=profile, identifier="arXiv:2006.00001", actor=owner)

    assert byline(work) == [("Charles Babbage", True), ("Ada Lovelace", True)]
    assert work.authorships.get(position=1).author == ada
    assert not duplicate.authorships.exists()
    pair = MergeCandidate.objects.get(author_a=ada, author_b=duplicate)
    assert pair.status == "open"

    # The next import of the preprint keeps one Ada on the byline: the owner.
    entry["summary"] = "A revised study."
    ingest(entry)
    assert byline(work) == [("Charles Babbage", True), ("Ada Lovelace", True)]
    assert work.authorships.get(position=1).author == ada
    assert MergeCandidate.objects.filter(kind="author").count() == 1


# 4. Two records of one work from one source ------------------------------------------------


def preprint_and_article():
    title = "Visual analytics of forest fires"
    authors = [(GENNADY_ID, GENNADY)]
    preprint = openalex_work(1, title, authors, arxiv_id="2108.04680", cited=2)
    preprint["type"] = "preprint"
    preprint["counts_by_year"] = [{"year": 2023, "cited_by_count": 2}]
    preprint["primary_location"] = {
        "source": {
            "id": "https://openalex.org/S4306400194",
            "display_name": "arXiv (Cornell University)",
            "type": "repository",
        }
    }
    article = openalex_work(2, title, authors, cited=0)
    article.update(doi="https://doi.org/10.2312/cgvc.20211309", counts_by_year=[])
    return preprint, article


@pytest.mark.parametrize("article_first", [True, False])
def test_the_published_version_wins_over_its_preprint_in_either_order(article_first):
    preprint, article = preprint_and_article()
    for payload in (article, preprint) if article_first else (preprint, article):
        ingest(payload)

    work = Work.objects.get()
    assert (work.type, work.doi) == ("article", "10.2312/cgvc.20211309")
    # The count and the citations per year come from the same record: they agree.
    assert (work.cited_by_count, work.counts_by_year) == (0, [])
    if article_first:
        assert work.venue is None  # the preprint's repository is not the article's venue
