"""An owner's word on who is who: "that record is me too", "that byline is mine".

The owner of a claimed record asks through an IdentityRequest; the rule that
decides whether it is applied at once or waits for staff (docs/TRUST.md):

- *join a record* ("that record is me too") is applied at once only on id-level
  proof: the other record carries an ORCID iD that is the owner's record's, or one
  the owner proved by signing in with ORCID (and staff have not kept the two
  apart). Otherwise it waits for staff, whatever the names and the evidence say.
- *join a byline* (a name on a work that no record holds) always waits for staff:
  a printed name carries no id.
- *leave a work* ("not mine") is applied at once, on any link: it only narrows what
  the owner's own record says (``profiles.claims.leaving``).

Applying reuses the staff services: a join of records is ``author_merge`` (the
other record is merged into the owner's), a join of a byline links the position
and stores a must-link. Each writes an audit event, kept on the request, that
``curation.undo.audit_undo`` reverses; the request is then undone. "Not me" on a
merge candidate is ``merge_candidate_keep_apart`` with the owner as the actor.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from catalogue.audit import Actor, audit_record
from catalogue.identifiers import normalize_orcid
from catalogue.models import (
    AuditEvent,
    Author,
    Authorship,
    IdentityRequest,
    LinkConstraint,
    MergeCandidate,
    Source,
    UnlinkedAuthorship,
    Work,
)
from curation.authors import author_merge
from curation.candidates import merge_candidate_keep_apart
from curation.constraints import (
    CANNOT,
    MUST,
    constraint_set,
    constraints_restore,
    metrics_refresh,
    pair_query,
)
from identity.evidence import LEVEL_WORDS
from identity.names import INCOMPATIBLE, compatible
from profiles.claims import ownership
from profiles.claims.proof import user_orcids
from profiles.models import Profile

REQUEST_RATE = "30/h"  # requests one owner may make in an hour
JOIN_RECORD = IdentityRequest.Kind.JOIN_RECORD
JOIN_BYLINE = IdentityRequest.Kind.JOIN_BYLINE
LEAVE_WORK = IdentityRequest.Kind.LEAVE_WORK
PENDING, APPLIED = IdentityRequest.Status.PENDING, IdentityRequest.Status.APPLIED
REJECTED = IdentityRequest.Status.REJECTED
MADE, BYLINE_JOIN, REJECT = "identity_request", "identity_byline_join", "identity_request_reject"


class IdentityRequestError(ValueError):
    """A request the rules refuse, said so the owner understands why."""


# Names -----------------------------------------------------------------------------------


def owner_names(author: Author) -> list[str]:
    """The names the record goes by: its display name, then the other forms sources gave."""
    names = [
        author.display_name,
        *(n for n in author.alternative_names or [] if isinstance(n, str)),
    ]
    return [name for name in dict.fromkeys(names) if name.strip()][:10]


def name_level(author: Author, name: str) -> int:
    """How well ``name`` agrees with the best of the record's names (0: not at all)."""
    return max((compatible(own, name) for own in owner_names(author)), default=INCOMPATIBLE)


def name_words(level: int) -> str:
    return "name: " + LEVEL_WORDS.get(level, "names disagree")


# Asking ----------------------------------------------------------------------------------


def _holder(author: Author, user) -> Profile:
    profile = ownership.owned_profile(user=user, author_id=author.pk)
    if profile is None:
        raise IdentityRequestError("Only the person who holds this record can ask.")
    return profile


def open_candidate(author: Author, other: Author) -> MergeCandidate | None:
    pair = Q(author_a=author, author_b=other) | Q(author_a=other, author_b=author)
    rows = MergeCandidate.objects.filter(pair, kind=MergeCandidate.Kind.AUTHOR)
    return rows.filter(status=MergeCandidate.Status.OPEN).first()


def _record_check(author: Author, other: Author | None) -> str:
    """Why ``other`` may be the owner too, or IdentityRequestError when it cannot join."""
    if other is None or other.pk == author.pk:
        raise IdentityRequestError("Pick another record than your own.")
    if other.merged_into_id or other.is_deleted:
        raise IdentityRequestError(f"{other} was merged into another record or removed.")
    if Profile.objects.filter(author=other).exists():
        raise IdentityRequestError(
            f"Someone holds {other}. If it is yours, claim it: staff review both claims."
        )
    candidate = open_candidate(author, other)
    if candidate is not None:
        return f"{candidate.reason} (score {candidate.score:.2f})"
    return name_words(name_level(author, other.display_name))


def orcid_proof(author: Author, other: Author, user) -> bool:
    """Id-level proof that ``other`` is the owner: an ORCID iD of the owner's on it."""
    orcid = normalize_orcid(other.orcid or "")
    if not orcid:
        return False
    apart = LinkConstraint.objects.filter(
        pair_query(author_id=author.pk, other_author_id=other.pk), kind=CANNOT
    )
    if apart.exists():
        return False
    return orcid == normalize_orcid(author.orcid or "") or orcid in user_orcids(user)


def _byline_check(author: Author, work: Work | None, position) -> str:
    """Why the unlinked name at ``position`` of ``work`` may be the owner's."""
    if work is None or work.merged_into_id:
        raise IdentityRequestError("That work was merged into another one.")
    if Authorship.objects.filter(work=work, author=author).exists():
        raise IdentityRequestError(f"{work} is on your record already.")
    if Authorship.objects.filter(work=work, position=position).exists():
        raise IdentityRequestError("A record holds that place of the byline now.")
    row = UnlinkedAuthorship.objects.filter(work=work, position=position).order_by("pk").first()
    if row is None:
        raise IdentityRequestError("No unlinked name stands at that place of the byline.")
    return f"{row.raw_name}, author {position + 1}: {name_words(name_level(author, row.raw_name))}"


def _not_asked_yet(author: Author, kind: str, other: Author | None, work, position) -> None:
    asked = IdentityRequest.objects.filter(author=author, kind=kind, status=PENDING)
    if kind == JOIN_RECORD:
        asked = asked.filter(other_author=other)
    else:
        asked = asked.filter(work=work, position=position)
    if asked.exists():
        raise IdentityRequestError("You asked already; staff will decide.")


def identity_request_make(
    *,
    author: Author,
    user,
    kind: str,
    other_author: Author | None = None,
    work: Work | None = None,
    position: int | None = None,
) -> IdentityRequest:
    """The owner of ``author`` asks; applied at once on id-level proof, else pending."""
    if kind == LEAVE_WORK:
        profile = _holder(author, user)
        if work is None:
            raise IdentityRequestError("Pick one of your works.")
        ownership.work_disown(profile=profile, work=work, actor=user)
        return IdentityRequest.objects.filter(author=author, work=work, kind=LEAVE_WORK).latest(
            "pk"
        )
    with transaction.atomic():
        _holder(author, user)
        if kind == JOIN_RECORD:
            evidence = _record_check(author, other_author)
            proved = orcid_proof(author, other_author, user)
        elif kind == JOIN_BYLINE:
            evidence, proved = _byline_check(author, work, position), False
        else:
            raise IdentityRequestError(f"Unknown request: {kind}.")
        _not_asked_yet(author, kind, other_author, work, position)
        request = IdentityRequest.objects.create(
            kind=kind,
            author=author,
            other_author=other_author if kind == JOIN_RECORD else None,
            work=work if kind == JOIN_BYLINE else None,
            position=position if kind == JOIN_BYLINE else None,
            evidence=evidence[:300],
            id_level=proved,
            requested_by=user,
        )
        audit_record(
            actor=user,
            action=MADE,
            target=request,
            data={"request": request.pk, "kind": kind, "id_level": proved, "evidence": evidence},
        )
        if proved:
            _apply(request, actor=user, decider=None)
        return request


# Applying ----------------------------------------------------------------------------------


def _apply(request: IdentityRequest, *, actor: Actor, decider: Actor) -> AuditEvent:
    if request.kind == JOIN_RECORD:
        _record_check(request.author, request.other_author)
        by = "staff" if decider is not None else "the owner, on their ORCID iD"
        event = author_merge(source=request.other_author, target=request.author, actor=actor, by=by)
    elif request.kind == JOIN_BYLINE:
        event = _byline_join(request, actor)
    else:
        raise IdentityRequestError(
            f"A {request.get_kind_display()} request is applied by its owner."
        )
    request.status, request.audit_event = APPLIED, event
    request.decided_by, request.decided_at = decider, timezone.now()
    request.save(update_fields=["status", "audit_event", "decided_by", "decided_at"])
    return event


def _byline_join(request: IdentityRequest, actor: Actor) -> AuditEvent:
    """Link the unlinked name at the request's place to the owner's record, and keep it."""
    author, work, position = request.author, request.work, request.position
    _byline_check(author, work, position)
    rows = list(
        UnlinkedAuthorship.objects.select_for_update()
        .filter(work=work, position=position)
        .order_by("pk")
    )
    link = Authorship.objects.create(
        work=work,
        author=author,
        position=position,
        raw_name=rows[0].raw_name[:500],
        source=Source.CLAIM,
        confidence=1.0,
        evidence="the researcher's word on the byline, checked by staff",
    )
    unlinked = [
        {"id": r.pk, "work_id": r.work_id, "position": r.position, "raw_name": r.raw_name}
        | {"source": r.source}
        for r in rows
    ]
    UnlinkedAuthorship.objects.filter(pk__in=[r.pk for r in rows]).delete()
    changes: dict = {}
    reason = f"The researcher's byline (identity request #{request.pk})"
    constraint_set(
        changes, kind=MUST, actor=actor, reason=reason, author_id=author.pk, work_id=work.pk
    )
    metrics_refresh([author.pk])
    data = {"request": request.pk, "author": author.pk, "work": work.pk, "position": position}
    data |= {"authorship": link.pk, "unlinked": unlinked, "constraints": changes}
    return audit_record(actor=actor, action=BYLINE_JOIN, target=author, data=data)


def identity_byline_join_undo(data: dict) -> dict:
    link = Authorship.objects.filter(
        pk=data["authorship"], author_id=data["author"], work_id=data["work"]
    ).first()
    if link is None:
        raise ValueError("The byline has left the record since; nothing to undo.")
    link.delete()
    UnlinkedAuthorship.objects.bulk_create(
        [UnlinkedAuthorship(**row) for row in data["unlinked"]], ignore_conflicts=True
    )
    constraints_restore(data["constraints"])
    metrics_refresh([data["author"]])
    return {"author": data["author"], "work": data["work"], "position": data["position"]}


# Staff decide ------------------------------------------------------------------------------


def _pending(request: IdentityRequest) -> IdentityRequest:
    request = IdentityRequest.objects.select_for_update().get(pk=request.pk)
    if request.status != PENDING:
        raise ValueError(f"This request was already decided: {request.get_status_display()}.")
    return request


def identity_request_approve(*, identity_request: IdentityRequest, actor: Actor) -> AuditEvent:
    """Staff agree: the request is applied as if proved, by the same services."""
    with transaction.atomic():
        request = _pending(identity_request)
        if request.kind == LEAVE_WORK:
            profile = Profile.objects.filter(author=request.author).first()
            if profile is None:
                raise ValueError(f"Nobody holds {request.author} now.")
            ownership.work_disown(profile=profile, work=request.work, actor=actor)
            request.refresh_from_db()
            return request.audit_event
        return _apply(request, actor=actor, decider=actor)


def identity_request_reject(*, identity_request: IdentityRequest, actor: Actor) -> AuditEvent:
    """Staff turn the request down; nothing else changes."""
    with transaction.atomic():
        request = _pending(identity_request)
        request.status, request.decided_by, request.decided_at = REJECTED, actor, timezone.now()
        request.save(update_fields=["status", "decided_by", "decided_at"])
        return audit_record(
            actor=actor, action=REJECT, target=request, data={"request": request.pk}
        )


def identity_request_reject_undo(data: dict) -> dict:
    IdentityRequest.objects.filter(pk=data["request"], status=REJECTED).update(
        status=PENDING, decided_by=None, decided_at=None
    )
    return {"request": data["request"]}


# "Not me" ------------------------------------------------------------------------------------


def identity_candidate_refuse(*, author: Author, candidate: MergeCandidate, user) -> AuditEvent:
    """The owner says the other record of a merge candidate is not them: kept apart."""
    _holder(author, user)
    if candidate.kind != MergeCandidate.Kind.AUTHOR or author.pk not in (
        candidate.author_a_id,
        candidate.author_b_id,
    ):
        raise IdentityRequestError("That pair does not name your record.")
    return merge_candidate_keep_apart(candidate=candidate, actor=user, by="the owner of a record")
