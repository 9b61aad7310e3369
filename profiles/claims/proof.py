"""What can prove a claim on an author record, for one user: ORCID, email, evidence.

Only ORCID sign-in whose iD equals the record's proves a claim at once. A confirmed
address at the domain of an institution of the record is evidence for staff, never
a proof. Evidence described by the claimant is always possible and reviewed by staff.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import Max, Min, Q

from catalogue.identifiers import normalize_orcid
from catalogue.models import Author, Authorship, Institution
from profiles.models import Claim


@dataclass(frozen=True)
class MethodCheck:
    """Whether one method can prove this user's claim on this record, and why (not)."""

    method: str
    label: str
    available: bool
    reason: str
    proof: str = ""  # the ORCID iD or email address that proves it
    remedy: str = ""  # what the user could do: "connect_orcid", "manage_email"
    domains: list[str] = field(default_factory=list)
    matched: dict[str, str] = field(default_factory=dict)  # email: the domain and its name


def user_orcids(user: AbstractBaseUser) -> set[str]:
    """ORCID iDs the user proved by signing in with ORCID."""
    from allauth.socialaccount.models import SocialAccount

    uids = SocialAccount.objects.filter(user=user, provider="orcid").values_list("uid", flat=True)
    return {orcid for orcid in map(normalize_orcid, uids) if orcid}


def user_emails(user: AbstractBaseUser) -> list[tuple[str, bool]]:
    """The user's email addresses with whether each is confirmed."""
    from allauth.account.models import EmailAddress

    rows = EmailAddress.objects.filter(user=user).order_by("-primary", "email")
    return [(email.lower(), verified) for email, verified in rows.values_list("email", "verified")]


def _affiliated_institutions(author: Author):
    return Institution.objects.filter(
        Q(pk=author.last_known_institution_id)
        | Q(pk__in=author.affiliations.values("institution_id"))
        | Q(authorships__author=author)
    ).exclude(homepage_domain="")


def _clean_domain(domain: str) -> str:
    return domain.lower().strip(".").removeprefix("www.")


def affiliated_domains(author: Author) -> dict[str, str]:
    """Homepage domains of the institutions the author is affiliated with, to the names."""
    institutions = (
        _affiliated_institutions(author).values_list("homepage_domain", "name").distinct()
    )
    domains: dict[str, str] = {}
    for domain, name in institutions:
        domain = _clean_domain(domain)
        if "." in domain:
            domains.setdefault(domain, name)
    return dict(sorted(domains.items()))


def years_at(author: Author, domain: str) -> tuple[int, int] | None:
    """First and last publication year of the author's works at institutions of ``domain``."""
    rows = _affiliated_institutions(author).values_list("pk", "homepage_domain").distinct()
    there = [pk for pk, homepage in rows if _clean_domain(homepage) == domain]
    span = (
        Authorship.objects.of_visible_works()
        .filter(author=author, institutions__in=there, work__publication_year__isnull=False)
        .aggregate(first=Min("work__publication_year"), last=Max("work__publication_year"))
    )
    return (span["first"], span["last"]) if there and span["first"] is not None else None


def years_text(span: tuple[int, int] | None) -> str:
    if span is None:
        return "years unknown"
    first, last = span
    return str(first) if first == last else f"{first}-{last}"


def institutional_evidence(*, author: Author, domain: str, name: str = "") -> str:
    """What a confirmed address at ``domain`` tells staff, as their review shows it first."""
    years = years_text(years_at(author, domain))
    text = f"confirmed address at {domain}, the record's institution {years}"
    return f"{text} ({name})" if name else text


def email_domain_matches(email: str, domain: str) -> bool:
    """True when the address is at ``domain`` or one of its subdomains."""
    host = email.rpartition("@")[2].lower().strip(".")
    return host == domain or host.endswith(f".{domain}")


def _orcid_check(user, author: Author, orcid_sign_in: bool) -> MethodCheck:
    label = Claim.Method.ORCID.label
    record = normalize_orcid(author.orcid)
    if not record:
        reason = "This record has no ORCID iD, so signing in with ORCID cannot prove it is yours."
        return MethodCheck(Claim.Method.ORCID, label, False, reason)
    mine = user_orcids(user)
    if record in mine:
        reason = f"Your ORCID iD {record} is the one on this record."
        return MethodCheck(Claim.Method.ORCID, label, True, reason, proof=record)
    if mine:
        reason = (
            f"You signed in with ORCID iD {', '.join(sorted(mine))}; this record's is {record}."
        )
        return MethodCheck(Claim.Method.ORCID, label, False, reason)
    if not orcid_sign_in:
        reason = (
            f"This record's ORCID iD is {record}, but ORCID sign-in is not set up on this site."
        )
        return MethodCheck(Claim.Method.ORCID, label, False, reason)
    reason = f"This record's ORCID iD is {record}: sign in with ORCID to prove it is yours."
    return MethodCheck(Claim.Method.ORCID, label, False, reason, remedy="connect_orcid")


def _email_check(user, author: Author) -> MethodCheck:
    label = Claim.Method.EMAIL.label
    domains = affiliated_domains(author)
    if not domains:
        reason = "No institution this record is affiliated with has a known web domain."
        return MethodCheck(Claim.Method.EMAIL, label, False, reason)
    names = ", ".join(f"{domain} ({name})" for domain, name in domains.items())
    emails = user_emails(user)
    for email, verified in emails:
        matched = next((d for d in domains if email_domain_matches(email, d)), None)
        if matched and verified:
            reason = (
                f"Your confirmed address {email} is at {matched} ({domains[matched]}). "
                "It is recorded as evidence and your claim goes to staff review: an address at "
                "an institution does not show which of its people you are."
            )
            return MethodCheck(
                Claim.Method.EMAIL,
                label,
                True,
                reason,
                proof=email,
                domains=list(domains),
                matched={matched: domains[matched]},
            )
    unconfirmed = [e for e, verified in emails if not verified and _at_any(e, domains)]
    if unconfirmed:
        reason = f"Confirm {unconfirmed[0]} first: only confirmed addresses count."
    else:
        reason = f"None of your confirmed email addresses is at {names}."
    return MethodCheck(
        Claim.Method.EMAIL, label, False, reason, remedy="manage_email", domains=list(domains)
    )


def _at_any(email: str, domains) -> bool:
    return any(email_domain_matches(email, d) for d in domains)


def _evidence_check() -> MethodCheck:
    reason = (
        "Describe how you can be identified and link to pages that show it "
        "(a staff page, a personal site, a CV); staff review it."
    )
    return MethodCheck(Claim.Method.EVIDENCE, Claim.Method.EVIDENCE.label, True, reason)


def claim_method_checks(
    *, user: AbstractBaseUser, author: Author, orcid_sign_in: bool = True
) -> list[MethodCheck]:
    """Every claim method for this user and record: whether it can work here, and why."""
    return [
        _orcid_check(user, author, orcid_sign_in),
        _email_check(user, author),
        _evidence_check(),
    ]
