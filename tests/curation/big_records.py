"""Records as large as real ones get: a collaboration paper and the researcher on it.

``big_world()`` writes them with ``bulk_create`` in a few seconds: a work with
``SIZE`` authors (each at an institution), ``SIZE`` references, ``SIZE`` works
citing it, ``SIZE`` grants from many funders, hundreds of topics and source
records; a researcher on ``SIZE + 1`` works with thousands of co-authors,
followers and score history; an institution, venue, topic and funder that
``SIZE`` rows point at; an import run with ``SIZE`` problems. Each model the
admin offers has its largest record in ``BigWorld.records``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta

from django.contrib.auth import get_user_model
from django.utils import timezone

from catalogue import models as pub
from graph.models import CoauthorEdge
from profiles.models import Block, Claim, Follow, Notification, Preferences, Profile, Report
from trust.models import Level, Tier, TrustScore, TrustScoreHistory

SIZE = 3000  # authors of a large collaboration's paper (ATLAS and CMS papers have more)
MANY = 300  # topics, source records, similar works: a long tail, not a collaboration's size


@dataclass
class BigWorld:
    work: pub.Work
    author: pub.Author
    institution: pub.Institution
    venue: pub.Venue
    topic: pub.Topic
    funder: pub.Funder
    citers: list[pub.Work]
    records: dict = field(default_factory=dict)  # model -> its largest record


def _authors(lab, count: int) -> list[pub.Author]:
    return pub.Author.objects.bulk_create(
        pub.Author(
            display_name=f"Member {n}", normalized_name=f"member {n}", last_known_institution=lab
        )
        for n in range(count)
    )


def _works(venue, count: int, prefix: str) -> list[pub.Work]:
    return pub.Work.objects.bulk_create(
        pub.Work(
            title=f"{prefix} {n}",
            normalized_title=f"{prefix.lower()} {n}",
            publication_year=2000 + n % 25,
            publication_date=date(2000 + n % 25, 1, 1),
            venue=venue,
            openalex_id=f"W7{n:07d}",
        )
        for n in range(count)
    )


def _byline(work, authors, lab) -> None:
    rows = pub.Authorship.objects.bulk_create(
        pub.Authorship(
            work=work, author=a, position=n, raw_name=a.display_name, source=pub.Source.OPENALEX
        )
        for n, a in enumerate(authors)
    )
    through = pub.Authorship.institutions.through
    through.objects.bulk_create(through(authorship=row, institution=lab) for row in rows)
    pub.AuthorInstitution.objects.bulk_create(
        pub.AuthorInstitution(author=a, institution=lab) for a in authors
    )


def _citations(work, citers) -> None:
    """``work`` cites every citer and a missing work per citer; every citer cites ``work``."""
    now = timezone.now()
    rows = [
        pub.Citation(
            citing=c,
            citing_openalex_id=c.openalex_id,
            cited_openalex_id=work.openalex_id,
            cited=work,
            linked_at=now,
        )
        for c in citers
    ]
    rows += [
        pub.Citation(
            citing=work,
            citing_openalex_id=work.openalex_id,
            cited_openalex_id=c.openalex_id,
            cited=c,
            linked_at=now,
        )
        for c in citers
    ]
    rows += [
        pub.Citation(
            citing=work, citing_openalex_id=work.openalex_id, cited_openalex_id=f"W6{n:07d}"
        )
        for n in range(SIZE)
    ]
    pub.Citation.objects.bulk_create(rows)


def _funding_and_topics(work, citers) -> tuple[pub.Funder, pub.Topic]:
    funders = pub.Funder.objects.bulk_create(
        pub.Funder(name=f"Funding agency {n}") for n in range(SIZE // 3)
    )
    grants = [
        pub.Grant(work=work, funder=funders[n % len(funders)], award_id=f"AWARD-{n}")
        for n in range(SIZE)
    ]
    grants += [pub.Grant(work=c, funder=funders[0], award_id="SHARED") for c in citers]
    pub.Grant.objects.bulk_create(grants)
    topics = pub.Topic.objects.bulk_create(
        pub.Topic(key=f"openalex:T{n}", name=f"Topic {n}", kind=pub.Topic.Kind.TOPIC)
        for n in range(MANY)
    )
    links = [pub.WorkTopic(work=work, topic=t, source=pub.Source.OPENALEX) for t in topics]
    links += [pub.WorkTopic(work=c, topic=topics[0], source=pub.Source.OPENALEX) for c in citers]
    pub.WorkTopic.objects.bulk_create(links)
    return funders[0], topics[0]


def _records(work, author, run) -> None:
    now = timezone.now()
    pub.SourceRecord.objects.bulk_create(
        pub.SourceRecord(
            source=source,
            entity=entity,
            external_id=f"{entity}-{n}",
            payload={"n": n},
            content_hash=str(n),
            fetched_at=now,
            work=work if entity == "work" else None,
            author=author if entity == "author" else None,
            import_run=run,
        )
        for n in range(MANY)
        for source, entity in (("openalex", "work"), ("openalex", "author"))
    )
    pub.ImportProblem.objects.bulk_create(
        pub.ImportProblem(source="openalex", external_id=f"W5{n}", error="bad", run=run)
        for n in range(SIZE)
    )


def _people(author, work, citers, authors) -> dict:
    users = get_user_model().objects.bulk_create(
        get_user_model()(username=f"reader{n}", email=f"reader{n}@example.org") for n in range(MANY)
    )
    owner = users[0]
    profile = Profile.objects.create(author=author, user=owner)
    profile.pinned_works.set(citers[:5])
    Follow.objects.bulk_create(Follow(user=u, author=author) for u in users)
    Preferences.objects.create(user=owner)
    note = Notification.objects.create(
        user=owner, kind=Notification.Kind.NEW_WORK, author=author, work=work, text="A new work"
    )
    claim = Claim.objects.create(user=owner, author=author, method=Claim.Method.ORCID)
    report = Report.objects.create(
        reporter=users[1], kind=Report.Kind.MISATTRIBUTION, author=author, work=work
    )
    block = Block.objects.create(blocker=users[1], blocked=owner)
    low, high = sorted([author, authors[1]], key=lambda a: a.pk)
    CoauthorEdge.objects.bulk_create(
        CoauthorEdge(author_low=author, author_high=other, joint_works=2)
        for other in authors[1:]
        if other.pk > author.pk
    )
    return {
        Profile: profile,
        Notification: note,
        Claim: claim,
        Report: report,
        Block: block,
        Follow: Follow.objects.filter(author=author).first(),
        Preferences: Preferences.objects.get(user=owner),
        CoauthorEdge: CoauthorEdge.objects.get(author_low=low, author_high=high),
        get_user_model(): owner,
    }


def _figures(author) -> dict:
    now = timezone.now()
    metrics = pub.AuthorMetrics.objects.create(author=author, works_count=SIZE + 1, citations=SIZE)
    score = TrustScore.objects.create(
        author=author, score=50, tier=Tier.ESTABLISHED, level=Level.L1, computed_at=now
    )
    TrustScoreHistory.objects.bulk_create(
        TrustScoreHistory(
            author=author,
            score=n % 100,
            tier=Tier.ESTABLISHED,
            level=Level.L1,
            computed_at=now - timedelta(days=n),
        )
        for n in range(SIZE)
    )
    return {
        pub.AuthorMetrics: metrics,
        TrustScore: score,
        TrustScoreHistory: TrustScoreHistory.objects.filter(author=author).first(),
    }


def _curation(work, other_work, author, other_author) -> dict:
    pair = pub.MergeCandidate.objects.create(
        kind="work", work_a=work, work_b=other_work, reason="same title", score=0.9
    )
    pub.MergeCandidate.objects.create(
        kind="author", author_a=author, author_b=other_author, reason="same name", score=0.9
    )
    constraint = pub.LinkConstraint.objects.create(
        kind=pub.LinkConstraint.Kind.CANNOT_LINK, author=author, work=work, source="staff"
    )
    event = pub.AuditEvent.objects.create(
        action="work_change",
        target_type="publications.work",
        target_id=str(work.pk),
        target_repr=str(work),
        data={"changed": {}},
    )
    return {pub.MergeCandidate: pair, pub.LinkConstraint: constraint, pub.AuditEvent: event}


def big_world() -> BigWorld:
    """The records (see the module's docstring); a few seconds on SQLite."""
    lab, *places = pub.Institution.objects.bulk_create(
        pub.Institution(name=f"Laboratory {n}") for n in range(20)
    )
    venue = pub.Venue.objects.create(name="Physics Letters of Examples")
    authors = _authors(lab, SIZE)
    work = pub.Work.objects.create(
        title="Observation of a new particle by a very large collaboration",
        normalized_title="observation of a new particle by a very large collaboration",
        publication_year=2025,
        publication_date=date(2025, 6, 1),
        venue=venue,
        openalex_id="W1000000001",
        cited_by_count=SIZE,
    )
    _byline(work, authors, lab)
    author = authors[0]
    pub.AuthorInstitution.objects.bulk_create(
        pub.AuthorInstitution(author=author, institution=place) for place in places
    )
    citers = _works(venue, SIZE, "A result citing the collaboration")
    pub.Authorship.objects.bulk_create(
        pub.Authorship(work=c, author=author, position=0, source=pub.Source.OPENALEX)
        for c in citers
    )
    _citations(work, citers)
    funder, topic = _funding_and_topics(work, citers)
    run = pub.ImportRun.objects.create(source="openalex", kind="file", status="failed")
    _records(work, author, run)
    pub.WorkSimilarity.objects.bulk_create(
        pub.WorkSimilarity(work=work, similar=c, score=0.5) for c in citers[:MANY]
    )
    world = BigWorld(work, author, lab, venue, topic, funder, citers)
    world.records = {
        pub.Work: work,
        pub.Author: author,
        pub.Institution: lab,
        pub.Venue: venue,
        pub.Topic: topic,
        pub.Funder: funder,
        pub.ImportRun: run,
        pub.Authorship: pub.Authorship.objects.get(work=work, author=author),
        pub.WorkTopic: pub.WorkTopic.objects.filter(work=work).first(),
        pub.Grant: pub.Grant.objects.filter(work=work).first(),
        pub.WorkSimilarity: pub.WorkSimilarity.objects.filter(work=work).first(),
        pub.SourceRecord: pub.SourceRecord.objects.filter(work=work).first(),
        pub.ImportProblem: pub.ImportProblem.objects.filter(run=run).first(),
        **_people(author, work, citers, authors),
        **_figures(author),
        **_curation(work, citers[0], author, authors[1]),
    }
    return world
