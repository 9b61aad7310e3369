"""Claims approved by an institutional email address alone go back to staff review.

A confirmed address at a university's domain says nothing about which of its
people the claimant is, so it is evidence for staff, never a proof. Claims that
the former rule approved at once by such an address (no staff reviewer) become
pending again: their holders keep the record (the Profile and the power to edit
it) until staff approve the claim (L4) or reject it. The evidence the address
gives is written into the claim, where staff review shows it first, and each
move is written to the audit trail as ``claim_reopen``.

The scores of these records are brought up to date after ``migrate`` by
``trust.receivers.rescore_reopened_claims``.

The code is kept here, on the models as they stand at this migration, so later
changes to the claim services cannot change what it did.
"""

from django.db import migrations
from django.db.models import Max, Min, Q

MIGRATION = "profiles.0004_email_claims_back_to_review"
REASON = (
    "An institutional email address is evidence for staff, never a proof by itself: "
    "a claim approved by it alone goes back to staff review. The holder keeps the record "
    "until staff decide."
)


def _clean_domain(domain: str) -> str:
    return domain.lower().strip(".").removeprefix("www.")


def _evidence(apps, claim) -> str:
    """The same words a new claim by this address gets, from the record as it is now."""
    Institution = apps.get_model("publications", "Institution")
    AuthorInstitution = apps.get_model("publications", "AuthorInstitution")
    Authorship = apps.get_model("publications", "Authorship")
    author = claim.author
    host = claim.verified_email.rpartition("@")[2].lower().strip(".")
    affiliations = AuthorInstitution.objects.filter(author_id=author.pk)
    institutions = (
        Institution.objects.filter(
            Q(pk=author.last_known_institution_id)
            | Q(pk__in=affiliations.values("institution_id"))
            | Q(authorships__author_id=author.pk)
        )
        .exclude(homepage_domain="")
        .values_list("pk", "homepage_domain", "name")
        .distinct()
    )
    matched: dict[str, tuple[str, list[int]]] = {}
    for pk, homepage, name in institutions:
        domain = _clean_domain(homepage)
        if "." in domain and (host == domain or host.endswith(f".{domain}")):
            matched.setdefault(domain, (name, []))[1].append(pk)
    if not matched:
        return (
            f"confirmed address at {host or 'an unknown domain'}, which is not the domain "
            "of an institution of the record now"
        )
    domain = sorted(matched)[0]
    name, ids = matched[domain]
    span = Authorship.objects.filter(
        author_id=author.pk,
        institutions__in=ids,
        work__merged_into__isnull=True,
        work__publication_year__isnull=False,
    ).aggregate(first=Min("work__publication_year"), last=Max("work__publication_year"))
    first, last = span["first"], span["last"]
    years = f"{first}-{last}" if first != last else str(first)
    years = "years unknown" if first is None else years
    text = f"confirmed address at {domain}, the record's institution {years}"
    return f"{text} ({name})" if name else text


def email_claims_back_to_review(apps, schema_editor):
    Claim = apps.get_model("profiles", "Claim")
    Profile = apps.get_model("profiles", "Profile")
    AuditEvent = apps.get_model("publications", "AuditEvent")
    approved_by_email = Claim.objects.filter(
        status="approved", method="email", reviewer__isnull=True
    ).select_related("author", "user")
    for claim in approved_by_email.order_by("pk"):
        evidence = _evidence(apps, claim)
        approved_at = claim.decided_at or claim.created_at
        claim.evidence = "\n\n".join(
            part
            for part in (
                evidence,
                f"Approved at once by this address on {approved_at:%Y-%m-%d} under the former "
                "rule; back in staff review, the holder keeps the record until staff decide.",
                claim.evidence,
            )
            if part
        )
        claim.status = "pending"
        claim.decided_at = None
        claim.save(update_fields=["status", "evidence", "decided_at"])
        holds = Profile.objects.filter(author_id=claim.author_id, user_id=claim.user_id).exists()
        username = getattr(claim.user, "username", "") or f"user {claim.user_id}"
        AuditEvent.objects.create(
            actor=None,
            action="claim_reopen",
            target_type="profiles.claim",
            target_id=str(claim.pk),
            target_repr=f"{username} claims {claim.author.display_name} (pending)"[:300],
            data={
                "author_id": claim.author_id,
                "user_id": claim.user_id,
                "method": claim.method,
                "status": claim.status,
                "before": "approved",
                "approved_at": approved_at.isoformat(),
                "evidence": evidence,
                "holder_keeps_record": holds,
                "reason": REASON,
                "migration": MIGRATION,
            },
        )


def leave_in_review(apps, schema_editor):
    """Unapplying approves nothing again: a claim nobody verified stays with staff.

    The ``claim_reopen`` events list every claim this migration moved; staff approve
    the right ones by hand, and the holders keep their records meanwhile.
    """


class Migration(migrations.Migration):
    dependencies = [
        ("profiles", "0003_keep_conversations"),
        ("publications", "0010_importrun_heartbeat"),
    ]

    operations = [migrations.RunPython(email_claims_back_to_review, leave_in_review)]
