"""What the owner of a claimed record changes: the profile, and which works are theirs.

"Not mine" and "add this work" are stored as LinkConstraints that later imports
obey: a cannot-link keeps a work off the record whatever a source says, a
must-link keeps it on. A work that is not in the database yet is imported from
OpenAlex (DOI) or arXiv (arXiv id) first, then linked.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import transaction
from django.db.models import Max, Q

from catalogue import signals as publication_signals
from catalogue.audit import audit_record
from catalogue.identifiers import normalize_arxiv_id, normalize_doi, normalize_name
from catalogue.models import (
    AuditEvent,
    Author,
    Authorship,
    ImportRun,
    LinkConstraint,
    MergeCandidate,
    Source,
    Work,
)
from ingestion.importing.requesting import Via, import_run_request
from profiles.claims import leaving
from profiles.claims.services import ClaimError
from profiles.models import MAX_PINNED_WORKS, Claim, Profile

OwnershipError = ClaimError  # one error type for every step a claimant takes

WORK_ADD_RATE = "20/h"
ADD, LINKED, NOT_FOUND = "work_add", "work_add_linked", "work_add_not_found"


def owned_profile(*, user, author_id: int) -> Profile | None:
    """The profile of ``author_id`` when ``user`` holds that record; None otherwise."""
    if user is None or not user.is_authenticated:
        return None
    return (
        Profile.objects.select_related("author", "user")
        .filter(
            author_id=author_id,
            user=user,
            # A holder whose claim went back to staff review keeps the record until they
            # decide: the Profile is theirs and their claim is still active.
            author__claims__user=user,
            author__claims__status__in=Claim.ACTIVE_STATUSES,
        )
        .first()
    )


def _changed_later(author_id: int) -> None:
    """Once committed, recompute what depends on the record's works."""

    def follow_up() -> None:
        from catalogue import tasks

        tasks.refresh_author_metrics.delay([author_id])
        publication_signals.authors_changed.send(sender=Profile, author_ids=[author_id])

    transaction.on_commit(follow_up)


# The profile ----------------------------------------------------------------------


def profile_update(
    *,
    profile: Profile,
    actor: AbstractBaseUser,
    tagline: str,
    homepage: str,
    open_to_collaborate: bool,
) -> Profile:
    """Save what the owner says about themselves."""
    tagline, homepage = (tagline or "").strip(), (homepage or "").strip()
    if len(tagline) > 200:
        raise OwnershipError("Keep the tagline under 200 characters.")
    if homepage:
        try:
            URLValidator(schemes=["http", "https"])(homepage)
        except ValidationError:
            raise OwnershipError(f"Not a web address (http or https): {homepage}") from None
    before = {
        "tagline": profile.tagline,
        "homepage": profile.homepage,
        "open_to_collaborate": profile.open_to_collaborate,
    }
    after = {"tagline": tagline, "homepage": homepage, "open_to_collaborate": open_to_collaborate}
    changed = {key: [before[key], value] for key, value in after.items() if before[key] != value}
    if not changed:
        return profile
    with transaction.atomic():
        for key, value in after.items():
            setattr(profile, key, value)
        profile.save(update_fields=[*after, "updated_at"])
        audit_record(actor=actor, action="profile_update", target=profile, data=changed)
    return profile


def _owner_work(profile: Profile, work: Work) -> Authorship:
    authorship = Authorship.objects.filter(author_id=profile.author_id, work=work).first()
    if authorship is None:
        raise OwnershipError("This work is not on your record.")
    return authorship


def work_pin(*, profile: Profile, work: Work, actor: AbstractBaseUser) -> None:
    """Pin one of the owner's works to the top of their page (at most five)."""
    _owner_work(profile, work)
    with transaction.atomic():
        Profile.objects.select_for_update().filter(pk=profile.pk).first()
        pinned = set(profile.pinned_works.values_list("pk", flat=True))
        if work.pk in pinned:
            return
        if len(pinned) >= MAX_PINNED_WORKS:
            raise OwnershipError(f"You can pin at most {MAX_PINNED_WORKS} works; unpin one first.")
        profile.pinned_works.add(work)
        audit_record(actor=actor, action="profile_pin", target=profile, data={"work_id": work.pk})


def work_unpin(*, profile: Profile, work: Work, actor: AbstractBaseUser) -> None:
    if not profile.pinned_works.filter(pk=work.pk).exists():
        return
    with transaction.atomic():
        profile.pinned_works.remove(work)
        audit_record(actor=actor, action="profile_unpin", target=profile, data={"work_id": work.pk})


# Which works are theirs --------------------------------------------------------------


def _constraint_set(*, author: Author, work: Work, kind: str, actor, reason: str) -> dict:
    """Record the owner's decision about one work, replacing an earlier one about the same pair."""
    earlier = LinkConstraint.objects.filter(
        author=author, work=work, other_author__isnull=True, other_work__isnull=True
    ).first()
    replaced = None
    if earlier:
        replaced = {"kind": earlier.kind, "source": earlier.source, "reason": earlier.reason}
        replaced["created_by_id"] = earlier.created_by_id
        earlier.delete()
    row = LinkConstraint.objects.create(
        kind=kind, author=author, work=work, source=Source.CLAIM, reason=reason, created_by=actor
    )
    return {"constraint_id": row.pk, "replaced": replaced}


def work_disown(
    *, profile: Profile, work: Work, actor: AbstractBaseUser, reason: str = ""
) -> LinkConstraint:
    """ "Not mine": take the work off the record, and keep later imports from putting it back."""
    author = profile.author
    with transaction.atomic():
        authorship = _owner_work(profile, work)
        data = _constraint_set(
            author=author,
            work=work,
            kind=LinkConstraint.Kind.CANNOT_LINK,
            actor=actor,
            reason=reason.strip() or "Not mine, says the owner of the record.",
        )
        data["authorship"] = leaving.authorship_dump(authorship)
        data["pinned"] = profile.pinned_works.filter(pk=work.pk).exists()
        evidence = leaving.link_evidence(authorship)
        authorship.delete()
        profile.pinned_works.remove(work)
        event = audit_record(
            actor=actor, action="work_disown", target=author, data={"work_id": work.pk, **data}
        )
        leaving.leave_recorded(
            author=author, work=work, actor=actor, event=event, evidence=evidence
        )
        _changed_later(author.pk)
    return LinkConstraint.objects.get(pk=data["constraint_id"])


def work_restore(*, profile: Profile, work: Work, actor: AbstractBaseUser) -> None:
    """Undo "not mine": the work is linked to the record again, and kept there."""
    author = profile.author
    removed = LinkConstraint.objects.filter(
        author=author, work=work, kind=LinkConstraint.Kind.CANNOT_LINK, other_author__isnull=True
    )
    if not removed.exists():
        raise OwnershipError("This work was not removed from your record.")
    with transaction.atomic():
        data = _link(author, work, actor)
        audit_record(
            actor=actor, action="work_restore", target=author, data={"work_id": work.pk, **data}
        )
        leaving.leave_undone(author=author, work=work)
        _changed_later(author.pk)


def removed_works(*, author: Author) -> list[Work]:
    """Works the owner said are not theirs, newest decision first."""
    return list(
        Work.objects.filter(
            link_constraints__author=author,
            link_constraints__kind=LinkConstraint.Kind.CANNOT_LINK,
            link_constraints__other_author__isnull=True,
        ).order_by("-link_constraints__created_at")
    )


@dataclass(frozen=True)
class WorkKey:
    """A DOI or an arXiv id the owner typed, normalised."""

    doi: str | None = None
    arxiv_id: str | None = None

    @classmethod
    def parse(cls, text: str) -> WorkKey:
        text = (text or "").strip()
        arxiv_id = normalize_arxiv_id(text)
        if arxiv_id:
            return cls(arxiv_id=arxiv_id)
        doi = normalize_doi(text)
        if doi:
            return cls(doi=doi)
        raise OwnershipError(
            f"Not a DOI (10.xxxx/…) or an arXiv id (2101.00001): {text[:80] or 'nothing given'}."
        )

    def __str__(self) -> str:
        return f"arXiv:{self.arxiv_id}" if self.arxiv_id else f"doi:{self.doi}"

    def dump(self) -> dict:
        return {"doi": self.doi, "arxiv_id": self.arxiv_id}

    def find(self) -> Work | None:
        query = Q(arxiv_id=self.arxiv_id) if self.arxiv_id else Q(doi=self.doi)
        if self.doi and not self.arxiv_id:
            query |= Q(arxiv_id=normalize_arxiv_id(self.doi) or "-")
        work = Work.objects.filter(query).select_related("merged_into").first()
        while work is not None and work.merged_into_id:
            work = work.merged_into
        return work

    def import_request(self) -> tuple[str, str, dict]:
        if self.arxiv_id:
            return Source.ARXIV, ImportRun.Kind.IDS, {"ids": [self.arxiv_id]}
        return Source.OPENALEX, ImportRun.Kind.DOIS, {"dois": [self.doi]}


def _link(author: Author, work: Work, actor) -> dict:
    """Link the work to the author (if it is not already) and keep it linked."""
    data = _constraint_set(
        author=author,
        work=work,
        kind=LinkConstraint.Kind.MUST_LINK,
        actor=actor,
        reason="Mine, says the owner of the record.",
    )
    if Authorship.objects.filter(author=author, work=work).exists():
        return data
    duplicate = _duplicate_on(work, author)
    if duplicate is not None:
        data["position_taken"] = _take_position(author, duplicate, actor)
    else:
        last = Authorship.objects.filter(work=work).aggregate(last=Max("position"))["last"]
        Authorship.objects.create(
            work=work,
            author=author,
            position=0 if last is None else last + 1,
            raw_name=author.display_name[:500],
            source=Source.CLAIM,
            confidence=1.0,
        )
        data["authorship_created"] = True
    return data


def _duplicate_on(work: Work, author: Author) -> Authorship | None:
    """The byline position of another, unclaimed record of the owner's name on ``work``.

    A record someone holds, or one a decision keeps on the work, is another
    person's: it is left alone.
    """
    names = {normalize_name(n) for n in [author.display_name, *author.alternative_names]}
    kept = LinkConstraint.objects.filter(work=work, kind=LinkConstraint.Kind.MUST_LINK)
    rows = (
        Authorship.objects.filter(work=work)
        .exclude(author=author)
        .exclude(author__profile__isnull=False)
        .exclude(author_id__in=kept.values("author_id"))
        .select_related("author")
        .order_by("position", "pk")
    )
    for row in rows:
        if {normalize_name(row.author.display_name), normalize_name(row.raw_name)} & names:
            return row
    return None


def _take_position(author: Author, duplicate: Authorship, actor) -> dict:
    """The owner's record takes the duplicate's byline position; staff decide on the pair.

    A cannot-link keeps later imports from giving the position back to the
    duplicate (the import then finds the owner there by name).
    """
    other = duplicate.author
    before = {
        "authorship_id": duplicate.pk,
        "author_id": other.pk,
        "source": duplicate.source,
        "confidence": duplicate.confidence,
    }
    duplicate.author, duplicate.source, duplicate.confidence = author, Source.CLAIM, 1.0
    duplicate.save(update_fields=["author", "source", "confidence"])
    _changed_later(other.pk)
    LinkConstraint.objects.get_or_create(
        author=other,
        work_id=duplicate.work_id,
        other_author=None,
        other_work=None,
        defaults={
            "kind": LinkConstraint.Kind.CANNOT_LINK,
            "source": Source.CLAIM,
            "reason": f"The owner of {author} took this byline position.",
            "created_by": actor,
        },
    )
    pair = Q(author_a=author, author_b=other) | Q(author_a=other, author_b=author)
    apart = LinkConstraint.objects.filter(
        Q(author=author, other_author=other) | Q(author=other, other_author=author)
    )
    if not MergeCandidate.objects.filter(pair).exists() and not apart.exists():
        candidate = MergeCandidate.objects.create(
            kind=MergeCandidate.Kind.AUTHOR,
            author_a=author,
            author_b=other,
            reason="Held a work its namesake, a claimed record, added as theirs",
            score=0.8,
        )
        before["merge_candidate_id"] = candidate.pk
    return before


@dataclass(frozen=True)
class WorkAddition:
    key: WorkKey
    work: Work | None  # linked now
    run: ImportRun | None  # importing first

    def waits_to_be_sent(self) -> bool:
        """The broker did not take the import; beat sends it once the broker answers."""
        if self.run is None:
            return False
        status = ImportRun.objects.filter(pk=self.run.pk).values_list("status", flat=True)
        return status.first() == ImportRun.Status.WAITING


def work_add(*, profile: Profile, identifier: str, actor: AbstractBaseUser) -> WorkAddition:
    """Add a missing work by DOI or arXiv id: linked now if known, else imported, then linked."""
    key = WorkKey.parse(identifier)
    author = profile.author
    work = key.find()
    with transaction.atomic():
        if work is not None:
            data = _link(author, work, actor)
            audit_record(
                actor=actor,
                action=LINKED,
                target=author,
                data={"key": key.dump(), "work_id": work.pk, **data},
            )
            _changed_later(author.pk)
            return WorkAddition(key, work, None)
        source, kind, parameters = key.import_request()
        # Sent once committed; with the broker down it waits to be sent (beat sends it).
        # The link follows the run's end (``works_to_link_after_import``), however it got sent.
        run = import_run_request(
            source=source, kind=kind, parameters=parameters, requested_by=actor, via=Via.OWNER
        )
        audit_record(
            actor=actor, action=ADD, target=author, data={"key": key.dump(), "run_id": run.pk}
        )
    return WorkAddition(key, None, run)


def works_to_link_after_import(*, run_id: int) -> list[tuple[int, int, int | None, dict]]:
    """Every work an owner asked ``run_id`` to import and that is not linked yet.

    As ``(run_id, author_id, actor_id, key)``, the arguments of the task that links it.
    Asked once a run has ended; a run that ends again (retried after failing) links
    what the first end could not.
    """
    events = AuditEvent.objects.filter(target_type=Author._meta.label_lower, data__run_id=run_id)
    linked = [(e.target_id, e.data.get("key")) for e in events.filter(action=LINKED)]
    return [
        (run_id, int(event.target_id), event.actor_id, event.data["key"])
        for event in events.filter(action=ADD).order_by("pk")
        if (event.target_id, event.data.get("key")) not in linked
    ]


def run_is_finished(run_id: int) -> bool:
    status = ImportRun.objects.filter(pk=run_id).values_list("status", flat=True).first()
    return status not in (
        ImportRun.Status.WAITING,
        ImportRun.Status.QUEUED,
        ImportRun.Status.RUNNING,
    )


def work_link_imported(
    *, run_id: int, author_id: int, actor_id: int | None, key: dict
) -> Work | None:
    """After the import asked for by ``work_add``: link the work, or record that none came."""
    from django.contrib.auth import get_user_model

    author = Author.objects.get(pk=author_id)
    actor = get_user_model().objects.filter(pk=actor_id).first()
    work_key = WorkKey(**key)
    work = work_key.find()
    with transaction.atomic():
        if work is None:
            said = AuditEvent.objects.filter(
                action=NOT_FOUND, target_id=str(author.pk), data__run_id=run_id
            )
            if not any(e.data.get("key") == key for e in said):  # said once per run
                audit_record(
                    actor=actor,
                    action=NOT_FOUND,
                    target=author,
                    data={"key": key, "run_id": run_id},
                )
            return None
        data = _link(author, work, actor)
        audit_record(
            actor=actor,
            action=LINKED,
            target=author,
            data={"key": key, "run_id": run_id, "work_id": work.pk, **data},
        )
        _changed_later(author.pk)
    return work


@dataclass(frozen=True)
class AdditionStatus:
    key: WorkKey
    state: str  # "importing", "linked", "not_found"
    work: Work | None
    requested_at: object


def work_additions(*, author: Author, limit: int = 10) -> list[AdditionStatus]:
    """The owner's latest "add a work" requests and where each stands."""
    events = list(
        AuditEvent.objects.filter(
            target_type=Author._meta.label_lower,
            target_id=str(author.pk),
            action__in=[ADD, LINKED, NOT_FOUND],
        ).order_by("-created_at", "-pk")[: limit * 2]
    )
    outcome = {}
    for event in events:  # newest first: a link made after a retried run beats "not found"
        if event.action != ADD and event.data.get("run_id"):
            outcome.setdefault(event.data["run_id"], event)
    works = Work.objects.in_bulk([e.data["work_id"] for e in events if e.data.get("work_id")])
    statuses = []
    for event in events:
        key = WorkKey(**event.data.get("key", {}))
        if event.action == ADD:
            done = outcome.get(event.data.get("run_id"))
            if done is None:
                statuses.append(AdditionStatus(key, "importing", None, event.created_at))
            elif done.action == NOT_FOUND:
                statuses.append(AdditionStatus(key, "not_found", None, event.created_at))
            else:
                work = works.get(done.data.get("work_id"))
                statuses.append(AdditionStatus(key, "linked", work, event.created_at))
        elif event.action == LINKED and not event.data.get("run_id"):
            work = works.get(event.data.get("work_id"))
            statuses.append(AdditionStatus(key, "linked", work, event.created_at))
    return statuses[:limit]
