"""Claiming an author record: every step of one (what can prove it is in ``proof``).

Only ORCID sign-in whose iD equals the record's proves a claim at once (L3).
A confirmed address at the domain of an institution of the record is evidence,
never a proof (a mailbox at a university says nothing about which of its people
you are): the claim waits for staff with that evidence written first. Staff
approve a claim (L4, whatever its evidence) or reject it with a reason the
claimant sees.

A record has at most one holder and a person holds at most one record: the
holder is the user of the record's Profile, opened when a claim is approved. A
holder whose claim went back to review keeps the Profile (and the power to
edit) until staff decide; the claim is then pending or disputed, not approved.
A claim on a record that someone else holds or is claiming becomes a dispute
for staff, and nobody loses anything meanwhile. Every step writes an
AuditEvent and, once committed, sends ``claim_changed`` so the trust score is
recomputed.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import IntegrityError, connection, transaction
from django.db.models import IntegerField, Q
from django.db.models.expressions import RawSQL
from django.utils import timezone

from catalogue.audit import audit_record
from catalogue.models import Author
from config.compiled import Compiled
from profiles.claims.proof import claim_method_checks, institutional_evidence
from profiles.models import Claim, Profile
from profiles.signals import claim_changed

# Web requests and API calls that create a claim, per signed-in user.
CLAIM_RATE = "10/h"
MAX_EVIDENCE_LINKS = 5
MIN_EVIDENCE_LENGTH = 20
MAX_EVIDENCE_LENGTH = 5000

# Methods whose proof is checked when the claim is made; only ORCID approves at once.
CHECKED_METHODS = (Claim.Method.ORCID, Claim.Method.EMAIL)


class ClaimError(ValueError):
    """A claim step that cannot be taken; the message says why, for the person asking."""


def claim_blocker(*, user: AbstractBaseUser, author: Author) -> Claim | None:
    """The user's active claim that stops a new one (on this record or another), if any."""
    return Claim.objects.active().filter(user=user).select_related("author").first()


def claim_contested(*, user: AbstractBaseUser, author: Author) -> bool:
    """Whether someone else holds or is claiming the record: a claim now becomes a dispute."""
    return Claim.objects.active().filter(author=author).exclude(user=user).exists()


def claim_level(claim: Claim) -> int | None:
    """Verification level an approved claim gives: L4 when staff reviewed it, L3 by ORCID.

    A claim approved without review by anything but ORCID (the former email rule) gives
    no level: only staff can make it count.
    """
    if claim.reviewer_id:
        return 4
    if claim.method == Claim.Method.ORCID:
        return 3
    return None


def claim_verification(claim: Claim) -> str:
    """How a claim was verified, in words."""
    if claim.reviewer_id:
        return "reviewed by staff"
    if claim.method == Claim.Method.ORCID:
        return "verified by ORCID"
    return "waiting for staff review"


def holds_record(claim: Claim) -> bool:
    """Whether the claimant holds the record: the record's Profile is theirs."""
    return (
        claim.status in Claim.ACTIVE_STATUSES
        and Profile.objects.filter(author_id=claim.author_id, user_id=claim.user_id).exists()
    )


# Steps of a claim ---------------------------------------------------------------


def clean_links(links) -> list[str]:
    """Evidence links: http(s) addresses, blanks and repeats dropped, at most five."""
    cleaned = []
    validate = URLValidator(schemes=["http", "https"])
    for link in links or []:
        link = str(link).strip()
        if not link:
            continue
        if len(link) > 500:
            raise ClaimError(f"A link is longer than 500 characters: {link[:60]}…")
        try:
            validate(link)
        except ValidationError:
            raise ClaimError(f"Not a web address (http or https): {link}") from None
        if link not in cleaned:
            cleaned.append(link)
    if len(cleaned) > MAX_EVIDENCE_LINKS:
        raise ClaimError(f"Give at most {MAX_EVIDENCE_LINKS} links.")
    return cleaned


def _clean_evidence(text: str) -> str:
    text = (text or "").strip()
    if len(text) < MIN_EVIDENCE_LENGTH:
        raise ClaimError(
            f"Describe your evidence in at least {MIN_EVIDENCE_LENGTH} characters, "
            "so staff can check it."
        )
    if len(text) > MAX_EVIDENCE_LENGTH:
        raise ClaimError(f"Keep the evidence under {MAX_EVIDENCE_LENGTH} characters.")
    return text


def _announce(claim: Claim) -> None:
    author_id = claim.author_id
    transaction.on_commit(lambda: claim_changed.send(sender=Claim, author_id=author_id))


def _lock_author(author: Author) -> Author:
    """Claims on one record are decided one at a time."""
    return Author.objects.select_for_update().get(pk=author.pk)


def _others_active(author_id: int, user) -> list[Claim]:
    return list(
        Claim.objects.select_for_update()
        .filter(author_id=author_id, status__in=Claim.ACTIVE_STATUSES)
        .exclude(user=user)
    )


def _dispute(claims: list[Claim], actor, cause: Claim) -> None:
    """Mark pending claims as disputed: staff now decide between them."""
    for other in claims:
        if other.status != Claim.Status.PENDING:
            continue
        other.status = Claim.Status.DISPUTED
        other.save(update_fields=["status"])
        audit_record(actor=actor, action="claim_dispute", target=other, data={"by": cause.pk})
        _announce(other)


def _audit_data(claim: Claim, **extra) -> dict:
    return {
        "author_id": claim.author_id,
        "user_id": claim.user_id,
        "method": claim.method,
        "status": claim.status,
        **extra,
    }


def claim_create(
    *,
    user: AbstractBaseUser,
    author: Author,
    method: str,
    evidence: str = "",
    links=(),
    orcid_sign_in: bool = True,
) -> Claim:
    """Claim ``author`` for ``user``; approved at once only when ORCID sign-in proves it.

    An institutional email is checked and recorded as evidence; the claim waits for staff.
    """
    if method not in Claim.Method.values:
        raise ClaimError(f"Unknown claim method: {method!r}.")
    if author.merged_into_id or author.is_deleted:
        raise ClaimError("This record was merged or removed; claim the record it became.")
    if method == Claim.Method.EVIDENCE:
        evidence, links = _clean_evidence(evidence), clean_links(links)
    else:
        evidence, links = "", []
    try:
        with transaction.atomic():
            return _create(user, _lock_author(author), method, evidence, links, orcid_sign_in)
    except IntegrityError:
        # Another request approved a claim for this record or this user in the meantime.
        raise ClaimError("This record or your account changed meanwhile; try again.") from None


def _create(user, author: Author, method: str, evidence: str, links, orcid_sign_in) -> Claim:
    held = claim_blocker(user=user, author=author)
    if held is not None:
        where = "this record" if held.author_id == author.pk else f"{held.author}"
        raise ClaimError(
            f"You already have a claim on {where} ({held.get_status_display().lower()}). "
            "Withdraw it before making another one."
        )
    proof = check = None
    if method in CHECKED_METHODS:
        check = next(
            c
            for c in claim_method_checks(user=user, author=author, orcid_sign_in=orcid_sign_in)
            if c.method == method
        )
        if not check.available:
            raise ClaimError(check.reason)
        proof = check.proof
    others = _others_active(author.pk, user)
    claim = Claim(user=user, author=author, method=method, evidence=evidence)
    claim.evidence_links = links
    if method == Claim.Method.ORCID:
        claim.verified_orcid = proof
    elif method == Claim.Method.EMAIL:
        # Evidence for staff, written where their review shows it first; never a proof.
        claim.verified_email = proof
        (domain, name), *_ = check.matched.items()
        claim.evidence = institutional_evidence(author=author, domain=domain, name=name)
    if others:
        claim.status = Claim.Status.DISPUTED
    elif method == Claim.Method.ORCID:
        claim.status = Claim.Status.APPROVED
        claim.decided_at = timezone.now()
    claim.save()
    audit_record(actor=user, action="claim_create", target=claim, data=_audit_data(claim))
    if claim.status == Claim.Status.APPROVED:
        _profile_open(claim)
        audit_record(
            actor=user,
            action="claim_approve",
            target=claim,
            data=_audit_data(claim, proof=proof, level=claim_level(claim)),
        )
    if claim.status == Claim.Status.DISPUTED:
        _dispute(others, user, claim)
    _announce(claim)  # a pending claim shows in the trust snapshot too
    return claim


def _profile_open(claim: Claim) -> Profile:
    profile, _ = Profile.objects.get_or_create(author_id=claim.author_id, user_id=claim.user_id)
    return profile


def _profile_close(claim: Claim) -> dict:
    """Remove the profile an approved claim opened; return what it held, for the audit trail."""
    profile = Profile.objects.filter(author_id=claim.author_id, user_id=claim.user_id).first()
    if profile is None:
        return {}
    kept = {
        "tagline": profile.tagline,
        "homepage": profile.homepage,
        "open_to_collaborate": profile.open_to_collaborate,
        "pinned_work_ids": list(profile.pinned_works.values_list("pk", flat=True)),
    }
    profile.delete()
    return kept


def _holder(claims: list[Claim]) -> Claim | None:
    """The claim among ``claims`` (one record's) whose claimant holds the record, if any."""
    held_by = Profile.objects.filter(author_id__in={c.author_id for c in claims}).values_list(
        "user_id", flat=True
    )
    holders = set(held_by)
    return next(
        (c for c in claims if c.status == Claim.Status.APPROVED or c.user_id in holders), None
    )


def _locked_claim(claim: Claim) -> Claim:
    _lock_author(claim.author)
    return Claim.objects.select_for_update().select_related("author", "user").get(pk=claim.pk)


def claim_withdraw(*, claim: Claim, user: AbstractBaseUser) -> Claim:
    """The claimant takes back a pending, disputed or approved claim."""
    with transaction.atomic():
        claim = _locked_claim(claim)
        if claim.user_id != user.pk:
            raise ClaimError("Only the person who made a claim can withdraw it.")
        if claim.status not in Claim.ACTIVE_STATUSES:
            raise ClaimError(f"This claim is already {claim.get_status_display().lower()}.")
        before = claim.status
        profile = _profile_close(claim)  # a holder under review holds the Profile too
        claim.status = Claim.Status.WITHDRAWN
        claim.withdrawn_at = timezone.now()
        claim.save(update_fields=["status", "withdrawn_at"])
        data = _audit_data(claim, before=before, profile=profile)
        audit_record(actor=user, action="claim_withdraw", target=claim, data=data)
        _announce(claim)
    return claim


def claim_approve(*, claim: Claim, actor: AbstractBaseUser, note: str = "") -> Claim:
    """Staff approve a pending or disputed claim after reviewing it (L4)."""
    with transaction.atomic():
        claim = _locked_claim(claim)
        if claim.status not in (Claim.Status.PENDING, Claim.Status.DISPUTED):
            raise ClaimError(
                f"Only a pending or disputed claim can be approved, not {claim.status}."
            )
        others = _others_active(claim.author_id, claim.user)
        holder = _holder(others)
        if holder is not None:
            raise ClaimError(
                f"{holder.user} holds this record (claim #{holder.pk}); "
                "reject that claim first if this one is right."
            )
        elsewhere = (
            Claim.objects.filter(user=claim.user, status=Claim.Status.APPROVED)
            .exclude(pk=claim.pk)
            .first()
        )
        if elsewhere is not None:
            raise ClaimError(
                f"This person already holds {elsewhere.author} (claim #{elsewhere.pk})."
            )
        claim.status = Claim.Status.APPROVED
        claim.reviewer = actor
        claim.review_note = note.strip()
        claim.decided_at = timezone.now()
        claim.save(update_fields=["status", "reviewer", "review_note", "decided_at"])
        _profile_open(claim)
        data = _audit_data(claim, level=claim_level(claim), note=claim.review_note)
        audit_record(actor=actor, action="claim_approve", target=claim, data=data)
        _dispute(others, actor, claim)
        _announce(claim)
    return claim


def claim_reject(*, claim: Claim, actor: AbstractBaseUser, reason: str) -> Claim:
    """Staff reject a claim (or revoke an approved one) with a reason the claimant sees."""
    reason = (reason or "").strip()
    if not reason:
        raise ClaimError("Give the reason for rejecting: the claimant sees it.")
    with transaction.atomic():
        claim = _locked_claim(claim)
        if claim.status not in Claim.ACTIVE_STATUSES:
            raise ClaimError(f"This claim is already {claim.get_status_display().lower()}.")
        before = claim.status
        profile = _profile_close(claim)  # a holder under review loses the record as well
        claim.status = Claim.Status.REJECTED
        claim.reviewer = actor
        claim.review_note = reason
        claim.decided_at = timezone.now()
        claim.save(update_fields=["status", "reviewer", "review_note", "decided_at"])
        data = _audit_data(claim, before=before, reason=reason, profile=profile)
        audit_record(actor=actor, action="claim_reject", target=claim, data=data)
        _announce(claim)
    return claim


# Reading claims -------------------------------------------------------------------


@dataclass
class PanelState:
    """What the claim panel of a researcher page shows."""

    holder: Claim | None  # the claim of the person who holds the record
    mine: Claim | None  # the viewer's latest claim on this record
    elsewhere: Claim | None  # the viewer's active claim on another record

    @property
    def level(self) -> int | None:
        return claim_level(self.holder) if self.holder and self.holder_approved else None

    @property
    def verification(self) -> str:
        return claim_verification(self.holder) if self.holder else ""

    @property
    def holder_approved(self) -> bool:
        return self.holder is not None and self.holder.status == Claim.Status.APPROVED

    @property
    def mine_active(self) -> bool:
        return self.mine is not None and self.mine.status in Claim.ACTIVE_STATUSES

    @property
    def mine_holds(self) -> bool:
        return self.holder is not None and self.mine is not None and self.holder.pk == self.mine.pk


def claim_panel_state(*, author: Author, user) -> PanelState:
    """The record's holder and the viewer's own claims, in one query (and one more for
    the record the viewer claims where it is another).

    A record has one profile at most, read with the record for its page: a waiting
    claim holds the record where its claimant is that profile's user, so no
    subquery asks (a page nobody asked for lately pays for building one).
    """
    if user is None or not user.is_authenticated:
        return PanelState(_record_holder(author), None, None)
    holder_id = getattr(getattr(author, "profile", None), "user_id", None)
    if holder_id is None:
        found = _CLAIMS_UNHELD.instances(author=author.pk, user=user.pk)
    else:
        found = _CLAIMS.instances(author=author.pk, user=user.pk, holder=holder_id)
    holder = mine = elsewhere = None
    for claim in found:
        holding = claim.status == Claim.Status.APPROVED or (
            claim.status in Claim.WAITING_STATUSES and claim.user_id == holder_id
        )
        if claim.author_id == author.pk and holding:
            holder = holder or claim
        if claim.user_id == user.pk:
            if claim.author_id == author.pk:
                mine = mine or claim
            elif claim.status in Claim.ACTIVE_STATUSES:
                elsewhere = elsewhere or claim
    if elsewhere is not None:  # the panel names that record: read here, not with every claim
        elsewhere.author = Author.objects.defer("search_vector").get(pk=elsewhere.author_id)
    return PanelState(holder, mine, elsewhere)


def _holding(author: int, holder: int | None) -> Q:
    """The claims on the record ``author`` by which it may be held: approved ones, and
    the waiting ones of ``holder``, the user of its profile (read with the record), if any."""
    wanted = Q(author_id=author, status=Claim.Status.APPROVED)
    if holder is not None:
        wanted |= Q(author_id=author, status__in=Claim.WAITING_STATUSES, user_id=holder)
    return wanted


def _claims_seen(author: int, user: int, holder: int | None = None):
    """The claims a signed-in ``user``'s claim panel on ``author``'s page weighs: those
    that may hold the record, theirs on it, and their active ones elsewhere."""
    wanted = (
        _holding(author, holder)
        | Q(user_id=user, author_id=author)
        | Q(user_id=user, status__in=Claim.ACTIVE_STATUSES)
    )
    return Claim.objects.filter(wanted).order_by("-created_at")


# Read on every researcher page a member opens: built once, for a record with a
# profile and for one without.
_CLAIMS = Compiled(_claims_seen, "author", "user", "holder")
_CLAIMS_UNHELD = Compiled(_claims_seen, "author", "user")


def _record_holder(author: Author) -> Claim | None:
    """The claim by which the record is held, as ``claim_panel_state`` finds it: the
    latest approved one, or a waiting one whose claimant holds the record's profile.

    Where the record was read with the id of that claim (``holder_read``), no query
    asks for a record nobody holds."""
    if hasattr(author, HOLDER_READ):
        held = getattr(author, HOLDER_READ)
        return None if held is None else Claim.objects.filter(pk=held).first()
    holder = getattr(getattr(author, "profile", None), "user_id", None)
    return Claim.objects.filter(_holding(author.pk, holder)).order_by("-created_at").first()


# The attribute of an author read with the id of the claim holding it (``holder_read``).
HOLDER_READ = "holder_read"


def holder_read() -> RawSQL:
    """The id of the claim holding each author a query reads (as ``_record_holder``
    finds it), or NULL, as an annotation named ``HOLDER_READ``. In plain SQL, as a
    subquery of the ORM costs more to build than to run."""
    quote = connection.ops.quote_name
    author = f"{quote(Author._meta.db_table)}.{quote(Author._meta.pk.column)}"
    claims, profiles = quote(Claim._meta.db_table), quote(Profile._meta.db_table)
    of_claim = {name: quote(Claim._meta.get_field(name).column) for name in ("author", "user")}
    of_profile = {name: quote(Profile._meta.get_field(name).column) for name in ("author", "user")}
    waiting = ", ".join(["%s"] * len(Claim.WAITING_STATUSES))
    sql = (
        f"SELECT c.{quote('id')} FROM {claims} c WHERE c.{of_claim['author']} = {author}"  # noqa: S608
        f" AND (c.{quote('status')} = %s OR (c.{quote('status')} IN ({waiting})"
        f" AND c.{of_claim['user']} IN (SELECT p.{of_profile['user']} FROM {profiles} p"
        f" WHERE p.{of_profile['author']} = {author})))"
        f" ORDER BY c.{quote('created_at')} DESC LIMIT 1"
    )
    params = [Claim.Status.APPROVED.value, *(str(s) for s in Claim.WAITING_STATUSES)]
    return RawSQL(sql, params, output_field=IntegerField())  # noqa: S611 - quoted names
