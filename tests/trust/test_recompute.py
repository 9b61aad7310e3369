"""Signals from the database, stored scores with history, and what triggers a recompute."""

from datetime import timedelta

import pytest
from django.utils import timezone

from catalogue.models import Author, AuthorInstitution, SourceRecord, Work
from catalogue.signals import authors_changed
from profiles.claims import services as claims
from profiles.models import Claim, Follow, Report
from profiles.signals import claim_changed, follow_changed, report_upheld
from tests.factories import (
    AuthorFactory,
    AuthorshipFactory,
    InstitutionFactory,
    UserFactory,
    VenueFactory,
    WorkFactory,
)
from tests.people import ORCID
from trust import selectors, sending, services, tasks
from trust.models import TrustScore, TrustScoreHistory

pytestmark = pytest.mark.django_db


def item(author, key: str) -> dict:
    score = TrustScore.objects.get(author=author)
    return next(i for g in score.components for i in g["items"] if i["key"] == key)


def record(works: int = 3, **author_fields) -> Author:
    """An OpenAlex-identified author with some works, venues and citations."""
    author = AuthorFactory(openalex_id=f"A{5_000_000 + Author.objects.count()}", **author_fields)
    venues = [VenueFactory(), VenueFactory()]
    for n in range(works):
        work = WorkFactory(
            venue=venues[n % 2], cited_by_count=10 * (n + 1), publication_year=2015 + n
        )
        AuthorshipFactory(work=work, author=author)
    return author


def announce_claim(claim: Claim) -> None:
    """What the claims code does once a claim step has committed."""
    claim_changed.send(sender=Claim, author_id=claim.author_id)


# The selector ---------------------------------------------------------------------------


def test_signals_take_the_same_queries_for_one_author_or_many(django_assert_num_queries):
    one = record(works=2)
    many = [record(works=12) for _ in range(6)]
    with django_assert_num_queries(7):
        selectors.signals_for_authors([one.pk])
    with django_assert_num_queries(7):
        found = selectors.signals_for_authors([a.pk for a in [one, *many]])
    assert len(found) == 7
    assert found[many[0].pk].works == 12


def test_signals_read_every_kind_of_evidence():
    author = record(works=4, orcid=ORCID)
    institution = InstitutionFactory(name="Example Institute")
    AuthorInstitution.objects.create(author=author, institution=institution)
    work = author.works.order_by("pk").first()
    Work.objects.filter(pk=work.pk).update(
        arxiv_id="2101.00001", openalex_id="W1", is_retracted=True
    )
    for source, external_id in (("openalex", "W1"), ("arxiv", "2101.00001")):
        SourceRecord.objects.create(
            source=source, external_id=external_id, payload={}, fetched_at=timezone.now(), work=work
        )
    # An arXiv id OpenAlex gave (from the DataCite DOI) is not arXiv listing the work.
    only_openalex = author.works.exclude(pk=work.pk).order_by("pk").first()
    Work.objects.filter(pk=only_openalex.pk).update(arxiv_id="2101.00002", openalex_id="W2")
    SourceRecord.objects.create(
        source="openalex",
        external_id="W2",
        payload={},
        fetched_at=timezone.now(),
        work=only_openalex,
    )
    this_year = timezone.now().year
    recent = WorkFactory(publication_year=this_year, cited_by_count=None)
    AuthorshipFactory(work=recent, author=author)
    follower = UserFactory()
    Follow.objects.create(user=follower, author=author)
    coauthor = AuthorFactory(display_name="Bo Coauthor")
    AuthorshipFactory(work=recent, author=coauthor, position=1)
    Claim.objects.create(user=UserFactory(), author=coauthor, method="orcid", status="approved")
    Claim.objects.create(user=UserFactory(), author=author, method="evidence", status="disputed")
    reported = WorkFactory(title="Not theirs")
    Report.objects.create(
        reporter=follower,
        kind="misattribution",
        author=author,
        work=reported,
        reason="wrong person",
        status="upheld",
    )

    s = selectors.author_signals(author.pk)

    assert (s.works, s.venues, s.citations) == (5, 2, 100)
    assert (s.first_year, s.last_year, s.recent_works) == (2015, this_year, 1)
    assert s.orcid == ORCID and s.affiliation == "Example Institute"
    assert s.cross_source_works == 1 and s.retracted == 1
    assert s.retracted_links[0].url == work.get_absolute_url()
    assert s.followers == 1
    assert s.claimed_collaborators == 1
    assert s.collaborator_links[0].label == "Bo Coauthor"
    assert s.collaborator_links[0].url == coauthor.get_absolute_url()
    assert (s.claim_status, s.disputes) == ("disputed", 1)
    assert s.misattributions == 1 and s.misattribution_links[0].label == "Not theirs"
    assert s.works_url == author.get_absolute_url() + "#works"


def test_merged_authors_have_no_signals_and_lose_their_score():
    target, other = record(), record()
    services.trust_scores_recompute(author_ids=[target.pk, other.pk])
    Author.objects.filter(pk=other.pk).update(merged_into=target)
    assert selectors.author_signals(other.pk) is None
    assert services.trust_scores_recompute(author_ids=[target.pk, other.pk]).computed == 1
    assert list(TrustScore.objects.values_list("author_id", flat=True)) == [target.pk]


# Stored scores and history ------------------------------------------------------------------


def test_recompute_stores_the_score_and_keeps_history_only_on_change():
    author = record()
    first = services.trust_scores_recompute(author_ids=[author.pk], reason="test")
    assert (first.computed, first.changed) == (1, 1)
    stored = TrustScore.objects.get(author=author)
    assert stored.level == 1 and stored.claim_status == "Unclaimed author"
    assert [g["key"] for g in stored.components] == [
        "identity",
        "record",
        "community",
        "activity",
        "penalties",
    ]
    again = services.trust_scores_recompute(author_ids=[author.pk], reason="test")
    assert (again.computed, again.changed) == (1, 0)
    assert TrustScoreHistory.objects.filter(author=author).count() == 1
    Follow.objects.create(user=UserFactory(), author=author)
    services.trust_scores_recompute(author_ids=[author.pk], reason="a follower")
    history = TrustScoreHistory.objects.filter(author=author).order_by("computed_at", "id")
    assert [h.reason for h in history] == ["test", "a follower"]
    assert history[1].score == TrustScore.objects.get(author=author).score > history[0].score


def test_unchanged_evidence_only_touches_computed_at(django_assert_max_num_queries):
    author = record()
    services.trust_scores_recompute(author_ids=[author.pk])
    first = TrustScore.objects.get(author=author)
    # Seven to read the signals, then lock and read the stored row and touch it (plus savepoints).
    with django_assert_max_num_queries(11) as queries:
        services.trust_scores_recompute(author_ids=[author.pk])
    writes = [q["sql"] for q in queries.captured_queries if q["sql"].lstrip().startswith("INSERT")]
    assert writes == []
    again = TrustScore.objects.get(author=author)
    assert again.computed_at > first.computed_at
    assert (again.digest, again.components) == (first.digest, first.components)


def test_new_evidence_without_a_new_score_rewrites_components_but_keeps_no_history():
    author = record(works=40)
    services.trust_scores_recompute(author_ids=[author.pk])
    before = TrustScore.objects.get(author=author)
    AuthorshipFactory(
        author=author, work=WorkFactory(publication_year=2015)
    )  # 41 works: same points
    services.trust_scores_recompute(author_ids=[author.pk])
    after = TrustScore.objects.get(author=author)
    assert after.score == before.score and after.digest != before.digest
    assert item(author, "works")["evidence"] == "41 works."
    assert TrustScoreHistory.objects.filter(author=author).count() == 1


def test_recompute_all_walks_every_visible_author_in_chunks():
    authors = [record(works=1) for _ in range(5)]
    merged = record(merged_into=authors[0])
    summary = services.trust_scores_recompute_all(chunk=2)
    assert summary.computed == 5
    assert set(TrustScore.objects.values_list("author_id", flat=True)) == {a.pk for a in authors}
    assert not TrustScore.objects.filter(author=merged).exists()


def test_the_nightly_task_recomputes_everyone():
    authors = [record(works=1) for _ in range(3)]
    # Celery's "no joining inside a task" flag is one per process, and an eager task running
    # in the live server's threads sets it meanwhile: this test is not inside a task.
    result = tasks.recompute_all.delay()
    assert result.get(disable_sync_subtasks=False) == {"computed": 3, "changed": 3}
    assert TrustScore.objects.filter(author__in=authors).count() == 3


# Claims raise the level; withdrawing brings it back ----------------------------------------


def test_approving_an_orcid_claim_raises_the_level_to_l3_and_withdrawing_brings_it_back():
    author = record(orcid=ORCID)
    services.trust_scores_recompute(author_ids=[author.pk], reason="import")
    before = TrustScore.objects.get(author=author)
    assert before.level == 2

    claim = Claim.objects.create(
        user=UserFactory(),
        author=author,
        method=Claim.Method.ORCID,
        verified_orcid=ORCID,
        status=Claim.Status.APPROVED,
        decided_at=timezone.now(),
    )
    announce_claim(claim)

    claimed = TrustScore.objects.get(author=author)
    assert claimed.level == 3
    assert claimed.claim_status == "Claimed and verified"
    assert claimed.score == before.score + 16 + 6  # the claim, and the ORCID sign-in agreeing
    assert item(author, "claim")["points"] == 16
    latest = TrustScoreHistory.objects.filter(author=author).order_by("-computed_at", "-id")[0]
    assert (latest.score, latest.level, latest.reason) == (claimed.score, 3, "claim changed")

    claim.status = Claim.Status.WITHDRAWN
    claim.withdrawn_at = timezone.now()
    claim.save()
    announce_claim(claim)

    after = TrustScore.objects.get(author=author)
    assert (after.score, after.level, after.claim_status) == (
        before.score,
        2,
        "Unclaimed author",
    )
    assert TrustScoreHistory.objects.filter(author=author).count() == 3


def test_staff_reviewed_claim_through_the_claims_service_gives_l4(
    django_capture_on_commit_callbacks, staff
):
    author = record()
    services.trust_scores_recompute(author_ids=[author.pk], reason="import")
    before = TrustScore.objects.get(author=author)
    claimant = UserFactory()
    with django_capture_on_commit_callbacks(execute=True):
        claim = claims.claim_create(
            user=claimant,
            author=author,
            method="evidence",
            evidence="My staff page lists these papers under my name.",
            links=["https://example.edu/staff/ada"],
        )
    assert TrustScore.objects.get(author=author).level == 1  # pending earns nothing
    with django_capture_on_commit_callbacks(execute=True):
        claims.claim_approve(claim=claim, actor=staff, note="Matches the staff page.")
    approved = TrustScore.objects.get(author=author)
    assert approved.level == 4
    assert approved.score == before.score + 20
    assert approved.claim_status == "Claimed, reviewed by staff"
    with django_capture_on_commit_callbacks(execute=True):
        claims.claim_withdraw(claim=claim, user=claimant)
    after = TrustScore.objects.get(author=author)
    assert (after.level, after.score) == (1, before.score)
    levels = list(
        TrustScoreHistory.objects.filter(author=author)
        .order_by("computed_at", "id")
        .values_list("level", flat=True)
    )
    assert levels == [1, 4, 1]


def test_a_claim_also_rescores_the_co_authors():
    author, coauthor = record(), record()
    AuthorshipFactory(work=author.works.first(), author=coauthor, position=1)
    services.trust_scores_recompute(author_ids=[author.pk, coauthor.pk])
    claim = Claim.objects.create(
        user=UserFactory(), author=author, method="email", status="approved"
    )
    announce_claim(claim)
    assert item(coauthor, "claimed_collaborators")["points"] == 1
    assert item(coauthor, "claimed_collaborators")["links"][0]["url"] == author.get_absolute_url()


def test_disputes_cost_points():
    author = record()
    services.trust_scores_recompute(author_ids=[author.pk])
    before = TrustScore.objects.get(author=author).score
    claim = Claim.objects.create(
        user=UserFactory(), author=author, method="evidence", status="disputed"
    )
    announce_claim(claim)
    assert TrustScore.objects.get(author=author).score == before - 5
    assert TrustScore.objects.get(author=author).claim_status == "Claim disputed"


# Other triggers ----------------------------------------------------------------------------


def test_follow_changed_rescores():
    author = record()
    Follow.objects.create(user=UserFactory(), author=author)
    follow_changed.send(sender=Follow, author_id=author.pk)
    assert item(author, "followers")["points"] == 1
    assert item(author, "followers")["evidence"] == "1 follower on this site."


def test_upheld_misattribution_report_costs_points_and_links_the_work():
    author = record()
    services.trust_scores_recompute(author_ids=[author.pk])
    before = TrustScore.objects.get(author=author).score
    work = author.works.first()
    Report.objects.create(
        reporter=UserFactory(),
        kind="misattribution",
        author=author,
        work=work,
        reason="not theirs",
        status="upheld",
        handled_at=timezone.now(),
    )
    report_upheld.send(sender=Report, author_id=author.pk)
    assert TrustScore.objects.get(author=author).score == before - 4
    assert item(author, "misattributions")["links"][0]["url"] == work.get_absolute_url()


def test_an_import_batch_scores_the_authors_it_touched():
    authors = [record(), record()]
    authors_changed.send(sender=Work, author_ids=[a.pk for a in authors])
    assert TrustScore.objects.filter(author__in=authors).count() == 2
    assert TrustScoreHistory.objects.filter(reason__startswith="works or links").count() == 2


def test_retracted_work_costs_ten_points():
    author = record()
    services.trust_scores_recompute(author_ids=[author.pk])
    before = TrustScore.objects.get(author=author).score
    Work.objects.filter(pk=author.works.first().pk).update(is_retracted=True)
    services.trust_scores_recompute(author_ids=[author.pk], reason="retraction imported")
    assert TrustScore.objects.get(author=author).score == before - 10


def test_recent_work_counts_this_year_and_the_two_before():
    author = AuthorFactory()
    year = timezone.now().year
    for offset in (0, 2, 3):
        AuthorshipFactory(author=author, work=WorkFactory(publication_year=year - offset))
    assert selectors.author_signals(author.pk).recent_works == 2


def test_first_request_for_an_unscored_author_queues_once(monkeypatch):
    author = record()
    queued = []
    monkeypatch.setattr(tasks.recompute_authors, "delay", lambda *args: queued.append(args))
    # Inline tasks (no worker): a page never computes while it renders.
    assert sending.trust_score_request(author_id=author.pk) is False
    conf = tasks.recompute_authors.app.conf
    conf.task_always_eager = False  # the autouse fixture puts it back after the test
    try:
        assert sending.trust_score_request(author_id=author.pk) is True
        assert sending.trust_score_request(author_id=author.pk) is False  # once per 10 min
    finally:
        conf.task_always_eager = True
    assert queued == [([author.pk], "first view of an unscored record")]


def test_history_is_read_oldest_first_and_limited():
    author = record()
    now = timezone.now()
    TrustScoreHistory.objects.bulk_create(
        TrustScoreHistory(
            author=author, score=n, tier="emerging", level=1, computed_at=now + timedelta(minutes=n)
        )
        for n in range(40)
    )
    points = selectors.history(author.pk)
    assert len(points) == selectors.HISTORY_POINTS
    assert [p[0] for p in points] == list(range(10, 40))


def test_a_claim_against_the_records_holder_costs_the_record_nothing():
    author = record()
    holder = Claim.objects.create(
        user=UserFactory(),
        author=author,
        method="evidence",
        status="approved",
        reviewer=UserFactory(is_staff=True),
    )
    announce_claim(holder)
    before = TrustScore.objects.get(author=author).score
    challenge = Claim.objects.create(
        user=UserFactory(), author=author, method="evidence", status="disputed"
    )
    announce_claim(challenge)

    assert TrustScore.objects.get(author=author).score == before
    assert item(author, "disputes")["points"] == 0
    assert "holder loses nothing" in item(author, "disputes")["evidence"]
