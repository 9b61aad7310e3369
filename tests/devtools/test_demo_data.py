"""The demo data set is well formed and keeps to the rules in devtools/demo/README.md."""

from __future__ import annotations

import json
import re
from collections import Counter
from io import StringIO
from pathlib import Path

import pytest
from lxml import etree

from catalogue.identifiers import arxiv_id_from_doi, normalize_arxiv_id, normalize_title

DEMO = Path(__file__).resolve().parents[2] / "devtools" / "demo"
NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "arxiv": "http://arxiv.org/schemas/atom",
    "opensearch": "http://a9.com/-/spec/opensearch/1.1/",
}
RESEARCHERS = {
    "https://openalex.org/A9000000001": "Gennady Pekhimenko",
    "https://openalex.org/A9000000002": "Amar Phanishayee",
}
FICTIONAL = {
    "https://openalex.org/A9800000001": "Mira Okafor",
    "https://openalex.org/A9800000002": "Tomas Lindqvist",
}
# The works the demo keeps in arXiv only (see the README): Pekhimenko's one, and the six
# records of seed 001 that no other seed shows (their authors are not shown either).
HIS_ARXIV_ONLY = {"2207.07736"}
SEED_001_ONLY = {"2210.10246", "2210.09603", "2110.01406", "2106.10207", "2102.02344", "2102.00527"}
ARXIV_ONLY = HIS_ARXIV_ONLY | SEED_001_ONLY
COCONET_PREPRINT = "2105.05720"  # seed 003's paper: its preprint, merged with the ASPLOS record
WORK_FILES = ["works.json", "fictional-works.json"]
LOCAL_AUTHOR_ID = re.compile(r"^https://openalex\.org/A9\d{9}$")
LOCAL_WORK_ID = re.compile(r"^https://openalex\.org/W9\d{9}$")
SENTENCE_END = re.compile(r"[.!?](?=\s|$)")


def _load(name: str) -> dict:
    return json.loads((DEMO / "openalex" / name).read_text(encoding="utf-8"))


def _all_works() -> list[dict]:
    later = json.loads((DEMO / "later" / "works.json").read_text(encoding="utf-8"))
    return [w for name in WORK_FILES for w in _load(name)["results"]] + later["results"]


@pytest.fixture(scope="module")
def authors() -> dict:
    return _load("authors.json")


@pytest.fixture(scope="module")
def works() -> dict:
    return _load("works.json")


@pytest.fixture(scope="module")
def feed() -> etree._Element:
    return etree.parse(str(DEMO / "arxiv" / "feed.atom")).getroot()


def _entries(feed) -> list:
    return feed.findall("atom:entry", NS)


def _arxiv_id(entry) -> str:
    return normalize_arxiv_id(entry.findtext("atom:id", namespaces=NS))


def _summary_text(work: dict) -> str:
    index = work["abstract_inverted_index"]
    words = sorted((pos, word) for word, positions in index.items() for pos in positions)
    assert [pos for pos, _ in words] == list(range(len(words))), "positions have gaps"
    return " ".join(word for _, word in words)


def _assert_short(text: str) -> None:
    assert 0 < len(text) < 400, text
    assert len(SENTENCE_END.findall(text)) <= 2, text


def test_the_readme_says_ids_are_local_and_abstracts_are_ours():
    readme = (DEMO / "README.md").read_text(encoding="utf-8")
    assert "local demo ids, not OpenAlex's" in readme
    assert "we wrote" in readme.lower()


LIST_PAGES = [
    "openalex/authors.json",
    "openalex/fictional-authors.json",
    "openalex/institutions.json",
    "openalex/works.json",
    "openalex/fictional-works.json",
    "later/works.json",
]


@pytest.mark.parametrize("name", LIST_PAGES)
def test_list_pages_have_meta_and_results(name):
    page = json.loads((DEMO / name).read_text(encoding="utf-8"))
    assert set(page) >= {"meta", "results"}
    assert page["meta"]["count"] == len(page["results"])
    assert page["meta"]["page"] == 1
    assert len(page["results"]) <= page["meta"]["per_page"]


def test_authors_are_the_two_seed_researchers(authors):
    by_id = {a["id"]: a for a in authors["results"]}
    assert {i: a["display_name"] for i, a in by_id.items()} == RESEARCHERS
    for author in authors["results"]:
        assert LOCAL_AUTHOR_ID.match(author["id"])
        assert author["ids"]["openalex"] == author["id"]
        assert author["orcid"] is None  # no seed shows one
        assert "cited_by_count" not in author and "summary_stats" not in author
    gennady = by_id["https://openalex.org/A9000000001"]
    assert gennady["works_count"] == 13
    assert [i["display_name"] for i in gennady["last_known_institutions"]] == [
        "University of Toronto"
    ]
    assert by_id["https://openalex.org/A9000000002"]["works_count"] == 15
    assert by_id["https://openalex.org/A9000000002"]["last_known_institutions"] == []


def test_each_work_counts_its_citations_once_and_year_by_year(works):
    for work in _all_works():
        yearly = sum(entry["cited_by_count"] for entry in work["counts_by_year"])
        assert yearly == work["cited_by_count"], work["title"]
    amar = [
        w["cited_by_count"]
        for w in works["results"]
        if "https://openalex.org/A9000000002" in {a["author"]["id"] for a in w["authorships"]}
    ]
    assert sum(amar) == 2896  # the total of seed 002


def test_institutions_have_homepages_and_the_fictional_ones_example_domains():
    for institution in _load("institutions.json")["results"]:
        homepage = institution["homepage_url"]
        assert homepage.startswith("https://"), institution
        fictional = institution["id"].startswith("https://openalex.org/I98")
        assert homepage.rstrip("/").endswith(".example") is fictional, homepage


def test_works_have_the_required_keys(works):
    ids = [w["id"] for w in works["results"]]
    assert len(ids) == len(set(ids))
    for work in works["results"]:
        assert LOCAL_WORK_ID.match(work["id"])
        assert work["ids"]["openalex"] == work["id"]
        assert work["title"] and work["display_name"] == work["title"]
        assert isinstance(work["publication_year"], int)
        if "publication_date" in work:
            assert work["publication_date"].startswith(str(work["publication_year"]))
        assert work["type"] in {"preprint", "article"}
        source = work["primary_location"]["source"]
        assert source["display_name"] and source["type"]
        assert work["authorships"], work["title"]
        for authorship in work["authorships"]:
            assert authorship["author_position"] in {"first", "middle", "last"}
            assert authorship["author"]["display_name"]
            assert authorship["raw_author_name"] == authorship["author"]["display_name"]
            author_id = authorship["author"]["id"]
            if author_id is not None:
                assert RESEARCHERS[author_id] == authorship["author"]["display_name"]
            else:
                assert authorship["author"]["display_name"] not in RESEARCHERS.values()
        assert work["topics"] and work["primary_topic"] == work["topics"][0]
        assert work["open_access"]["oa_status"] in {"green", "closed"}


def test_arxiv_works_carry_their_id_the_way_openalex_does(works):
    for work in works["results"]:
        doi_id = arxiv_id_from_doi(work["doi"])
        page_id = normalize_arxiv_id(work["primary_location"]["landing_page_url"] or "")
        assert doi_id == page_id, work["title"]
        if doi_id:
            assert work["ids"]["doi"] == work["doi"] == f"https://doi.org/10.48550/arxiv.{doi_id}"
            assert work["primary_location"]["source"]["display_name"] == (
                "arXiv (Cornell University)"
            )


def test_summaries_are_short_and_ours(works, feed):
    for work in _all_works():
        _assert_short(_summary_text(work))
    for entry in _entries(feed):
        _assert_short(" ".join(entry.findtext("atom:summary", namespaces=NS).split()))


def test_feed_has_the_2026_layout(feed):
    assert feed.tag == "{http://www.w3.org/2005/Atom}feed"
    assert feed.nsmap == {None: NS["atom"], "arxiv": NS["arxiv"], "opensearch": NS["opensearch"]}
    entries = _entries(feed)
    assert int(feed.findtext("opensearch:totalResults", namespaces=NS)) == len(entries)
    assert int(feed.findtext("opensearch:startIndex", namespaces=NS)) == 0
    assert int(feed.findtext("opensearch:itemsPerPage", namespaces=NS)) >= len(entries)
    for entry in entries:
        arxiv_id = _arxiv_id(entry)
        assert arxiv_id, entry.findtext("atom:id", namespaces=NS)
        assert entry.findtext("atom:title", namespaces=NS).strip()
        assert entry.findtext("atom:published", namespaces=NS)
        names = [a.findtext("atom:name", namespaces=NS) for a in entry.findall("atom:author", NS)]
        assert names or arxiv_id in SEED_001_ONLY
        assert all(name and name.strip() for name in names)
        links = {link.get("rel"): link.get("href") for link in entry.findall("atom:link", NS)}
        assert normalize_arxiv_id(links["alternate"]) == arxiv_id
        assert normalize_arxiv_id(links["related"]) == arxiv_id
        assert links["related"].startswith("https://arxiv.org/pdf/")


def test_every_arxiv_entry_is_in_openalex_except_the_arxiv_only_ones(works, feed):
    in_openalex = {}
    for work in works["results"]:
        places = [work["doi"], *(place["landing_page_url"] for place in work["locations"])]
        for value in places:
            arxiv_id = normalize_arxiv_id(value or "")
            if arxiv_id:
                in_openalex[arxiv_id] = work
    feed_ids = {_arxiv_id(entry): entry for entry in _entries(feed)}
    assert set(feed_ids) - set(in_openalex) == ARXIV_ONLY
    both = set(feed_ids) & set(in_openalex)
    assert len(both) >= 2, "several works must exist in both sources"
    assert COCONET_PREPRINT in both  # the preprint of seed 003's paper
    for arxiv_id in both:
        entry_title = feed_ids[arxiv_id].findtext("atom:title", namespaces=NS)
        # arXiv keeps the title case of the preprint; OpenAlex the publisher's.
        assert normalize_title(entry_title) == normalize_title(in_openalex[arxiv_id]["title"])
    titles = {w["title"] for w in works["results"]}
    for arxiv_id in ARXIV_ONLY:
        assert feed_ids[arxiv_id].findtext("atom:title", namespaces=NS) not in titles


def test_each_researcher_has_works_and_collaborators_recur(works, feed):
    per_researcher = Counter()
    coauthors = Counter()
    for work in works["results"]:
        names = [a["author"]["display_name"] for a in work["authorships"]]
        for author_id, name in RESEARCHERS.items():
            if name in names:
                ids = {a["author"]["id"] for a in work["authorships"]}
                assert author_id in ids
                per_researcher[name] += 1
        coauthors.update(n for n in names if n not in RESEARCHERS.values())
    arxiv_names = Counter(
        name.text for name in feed.iterfind("atom:entry/atom:author/atom:name", NS)
    )
    # The counts the seed pages list: 13 works (one of them in arXiv only) and 15 papers.
    assert per_researcher["Gennady Pekhimenko"] + len(HIS_ARXIV_ONLY) == 13
    assert per_researcher["Amar Phanishayee"] == 15
    his_entries = len(_entries(feed)) - len(SEED_001_ONLY) - 1  # CoCoNet is not his
    assert arxiv_names["Gennady Pekhimenko"] == his_entries
    assert any(count >= 2 for count in coauthors.values()), "no repeat collaborator"
    shared = [
        w
        for w in works["results"]
        if {a["author"]["id"] for a in w["authorships"]} >= set(RESEARCHERS)
    ]
    assert len(shared) == 1  # Daydream is on both seed pages


# The demo through the real importers ------------------------------------------------------


@pytest.fixture
def demo_twice(db):
    from django.core.management import call_command

    out = StringIO()
    call_command("demo", stdout=out, stderr=out)
    call_command("demo", stdout=out, stderr=out)


@pytest.fixture
def demo_twice_committed(transactional_db):
    """The demo loaded twice, each step committed and its follow-ups run, as on the site."""
    from django.core.management import call_command

    for _ in range(2):
        call_command("demo", stdout=StringIO(), stderr=StringIO())


def test_the_demo_imported_twice_keeps_one_record_per_researcher(demo_twice):
    from catalogue.models import Author

    for name, count in [("Gennady Pekhimenko", 13), ("Amar Phanishayee", 15)]:
        record = Author.objects.visible().get(display_name=name)
        assert record.works.count() == count
    names = Counter(Author.objects.visible().values_list("normalized_name", flat=True))
    # Two records of one name only where the demo means them (see the README).
    assert {name for name, n in names.items() if n > 1} == {"mira okafor", "bojian zheng"}
    assert max(names.values()) == 2


def test_the_demo_has_every_arxiv_record_of_seed_001_and_no_arxiv_only_article(demo_twice):
    from catalogue.models import Work

    ids = set(Work.objects.exclude(arxiv_id=None).values_list("arxiv_id", flat=True))
    assert ids >= SEED_001_ONLY | HIS_ARXIV_ONLY | {"2103.03239", "2102.04285", "2012.00192"}
    arxiv_only = Work.objects.filter(arxiv_id__in=ARXIV_ONLY)
    assert arxiv_only.count() == len(ARXIV_ONLY)
    assert not arxiv_only.filter(type=Work.Type.ARTICLE).exists()
    for work in Work.objects.exclude(publication_date=None):
        assert work.publication_date.year == work.publication_year, work.title


def test_the_demo_keeps_the_coconet_record_of_seed_003(demo_twice):
    from catalogue.models import Work

    work = Work.objects.get(title__startswith="Breaking the computation and communication")
    assert work.publication_year == 2022
    assert work.venue.name.startswith("ASPLOS 2022: Proceedings of the 27th ACM")
    grant = work.grants.get()
    assert (grant.funder.name, grant.award_id) == ("National Science Foundation", "2052696")
    assert work.authorships.count() == 9  # the seed counts nine
    # The ASPLOS record and its arXiv preprint are one work, typed as the published one.
    assert (work.doi, work.arxiv_id, work.type) == (
        "10.1145/3503222.3507778",
        "2105.05720",
        "article",
    )


def test_the_demo_sets_the_coconet_embargo_as_staff_once(demo_twice, client):
    import datetime

    from catalogue.models import AuditEvent, Work

    work = Work.objects.get(title__startswith="Breaking the computation and communication")
    assert work.embargo_until == datetime.date(2023, 2, 28)
    assert work.provenance["embargo_until"] == "staff"
    events = AuditEvent.objects.filter(target_type="publications.work", target_id=str(work.pk))
    assert [e.data["via"] for e in events] == ["demo"]  # the second demo found it set already
    page = client.get(work.get_absolute_url()).content.decode()
    assert "under embargo until 28 Feb 2023" in page


def test_the_first_screen_shows_the_seed_researchers_once(demo_twice, client):
    page = client.get("/").content.decode()
    researchers = page.split('id="recent-researchers"', 1)[1].split("</section>", 1)[0]
    cards = re.findall(r'class="card-title"[^>]*>([^<]+)<', researchers)
    assert set(cards[:2]) == {"Gennady Pekhimenko", "Amar Phanishayee"}
    assert cards.count("Gennady Pekhimenko") == cards.count("Amar Phanishayee") == 1


def test_a_list_that_ends_in_et_al_is_marked_truncated(works):
    for work in works["results"]:
        positions = {a["author_position"] for a in work["authorships"]}
        # A complete list has a last author; the researcher alone (Skyline) is no list.
        expected = len(positions) > 1 and "last" not in positions
        assert work.get("is_authors_truncated", False) is expected, work["title"]


def test_bylines_say_et_al_where_the_seed_does(demo_twice, client):
    from catalogue.models import Author, Work

    blink = Work.objects.get(title__startswith="Blink")
    forecasting = Work.objects.get(title__startswith="Forecasting GPU Performance")
    assert blink.authors_truncated and not forecasting.authors_truncated
    assert "authors-truncated" in client.get(blink.get_absolute_url()).content.decode()
    assert "authors-truncated" not in client.get(forecasting.get_absolute_url()).content.decode()
    amar = Author.objects.visible().get(display_name="Amar Phanishayee")
    page = client.get(amar.get_absolute_url()).content.decode()
    truncated = Work.objects.filter(authors_truncated=True, authorships__author=amar).count()
    assert page.count("authors-truncated") == truncated


def test_amar_phanishayees_works_carry_the_categories_of_seed_002(demo_twice, client):
    from catalogue.models import Work

    expected = {
        "Efficient Large-Scale Language Model Training": "cs.CL",
        "Packrat": "cs.DC",
        "Forecasting GPU Performance": "cs.LG",
        "Blink": "cs.DC",
    }
    for start, category in expected.items():
        assert Work.objects.get(title__startswith=start).arxiv_primary_category == category
    amar = Work.objects.get(title__startswith="Packrat").authors.get(
        display_name="Amar Phanishayee"
    )
    page = client.get(amar.get_absolute_url()).content.decode()
    assert page.count("cs.DC") >= 5 and "cs.CL" in page


@pytest.mark.django_db(transaction=True)  # each import commits before the curation, as in use
def test_the_demo_researchers_figures_read_the_curated_categories():
    from django.core.management import call_command

    from catalogue.models import AuthorMetrics

    call_command("demo", stdout=StringIO(), stderr=StringIO())
    amar = AuthorMetrics.objects.get(author__display_name="Amar Phanishayee")
    assert amar.primary_category == "cs.DC"  # seed 002 shows "DC"
    assert amar.ai_score is not None


def test_every_row_of_the_feature_table_has_a_browser_check_and_no_check_is_left_over():
    from tests.e2e.demo_features import CHECKS, feature_rows

    rows = feature_rows()
    assert len(rows) == len(set(rows)) >= 30
    assert set(rows) == set(CHECKS)
    assert all(CHECKS[row] for row in rows)


def test_the_demo_figures_have_something_to_show(demo_twice_committed):
    from catalogue.models import AuthorMetrics, Citation

    gennady = AuthorMetrics.objects.get(author__openalex_id="A9000000001")
    # Seed 000: 13 works, 9 topics, 4 close collaborators.
    assert (gennady.works_count, gennady.topics_count, gennady.close_collaborators_count) == (
        13,
        9,
        4,
    )
    assert gennady.citations and gennady.h_index and gennady.i10_index
    assert gennady.citations_by_year and gennady.site_citations
    assert gennady.ai_score and 0 < gennady.novelty < 100
    assert [i["name"] for i in gennady.institutions_list][:1] == ["University of Toronto"]
    amar = AuthorMetrics.objects.get(author__openalex_id="A9000000002")
    assert amar.citations == 2896  # seed 002
    assert amar.close_collaborators_count == 4 and amar.novelty < 100
    novelties = set(AuthorMetrics.objects.exclude(novelty=None).values_list("novelty", flat=True))
    assert len(novelties) > 2  # not 100% for everyone
    held = Citation.objects.exclude(cited=None)
    assert held.count() >= 10 and Citation.objects.filter(cited=None).count() >= 4


def test_the_demo_people_claim_follow_and_talk_once_however_often_it_runs(
    demo_twice_committed,
):
    from catalogue.models import Author, MergeCandidate
    from profiles.models import Claim, Follow, Invitation, Notification
    from trust.models import TrustScoreHistory

    mira = Author.objects.get(openalex_id="A9800000001")
    assert mira.claims.get().status == Claim.Status.APPROVED
    assert mira.profile.open_to_collaborate and mira.profile.pinned_works.count() == 1
    assert Follow.objects.filter(author=mira).count() == 2
    assert Claim.objects.count() == 2 and Follow.objects.count() == 3
    invitation = Invitation.objects.get()
    assert invitation.status == Invitation.Status.ACCEPTED
    assert invitation.messages.count() == 3
    assert TrustScoreHistory.objects.filter(author=mira).count() >= 2
    candidates = set(
        MergeCandidate.objects.filter(author_a=mira).values_list("author_b__display_name", "status")
    )
    # The namesake with nothing in common is a candidate; the work signed "M. N. Okafor"
    # with her co-author, in her venue, joins her record on that evidence.
    assert candidates == {("Mira Okafor", "open")}
    signed = mira.authorships.get(raw_name="M. N. Okafor")
    assert "shared co-author" in signed.evidence and "initials agree" in signed.evidence
    kinds = Counter(Notification.objects.values_list("user__email", "kind"))
    assert kinds[("lena.fischer@demo.example", "new_citation")] == 1
    assert kinds[("sam.patel@demo.example", "new_work")] == 1
    # Pekhimenko stays as seed 000 shows him: unclaimed, no followers.
    assert not Claim.objects.filter(author__openalex_id="A9000000001").exists()
    assert not Follow.objects.filter(author__openalex_id="A9000000001").exists()


def test_the_demo_says_one_line_per_step_and_where_to_look(transactional_db, caplog):
    import logging

    from django.core.management import call_command

    out = StringIO()
    with caplog.at_level(logging.INFO):
        call_command("demo", "--address", "http://127.0.0.1:8123/", stdout=out, stderr=out)
    lines = out.getvalue().splitlines()
    steps = [line for line in lines if line.startswith("Demo ") and "/5: " in line]
    assert len(steps) == 5
    assert "Demo ready. Open http://127.0.0.1:8123/researchers/" in lines[len(steps)]
    assert len(lines) <= len(steps) + 2
    # The tasks that run inline log at INFO, dozens of lines per import: none get through.
    assert not [r for r in caplog.records if r.levelno <= logging.INFO]
