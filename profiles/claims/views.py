"""Claim pages (choose how to prove a claim, follow its status, withdraw it) and owner edits."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST
from rest_framework.authtoken.models import Token

from catalogue import selectors
from catalogue.models import Author, Work
from catalogue.permissions import VIEW, admin_allows
from config.ratelimits import ratelimit
from profiles.claims import ownership, proof
from profiles.claims import services as claims
from profiles.claims.forms import AddWorkForm, DisownForm, EvidenceClaimForm, ProfileForm
from profiles.claims.services import ClaimError
from profiles.models import Claim, Profile


def orcid_sign_in_enabled(request: HttpRequest) -> bool:
    """Whether ORCID sign-in is set up (from the environment or a SocialApp row)."""
    from allauth.socialaccount.adapter import get_adapter

    return bool(get_adapter().list_apps(request, provider="orcid"))


def _denied(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "profiles/claim_denied.html", {"message": message}, status=403)


# Claiming -------------------------------------------------------------------------


@login_required
@ratelimit(key="user", rate=claims.CLAIM_RATE, method="POST", block=True)
def claim_start(request: HttpRequest, pk: int) -> HttpResponse:
    """The claim page: every method, whether it can work for this record, and why (not)."""
    author = get_object_or_404(Author.objects.select_related("last_known_institution"), pk=pk)
    if author.merged_into_id:
        return redirect("profiles:claim", pk=author.merged_into_id)
    orcid_sign_in = orcid_sign_in_enabled(request)
    method = request.POST.get("method", "")
    form = EvidenceClaimForm(request.POST if method == Claim.Method.EVIDENCE else None)
    error, status = "", 200
    if request.method == "POST":
        if method == Claim.Method.EVIDENCE and not form.is_valid():
            error, status = "Your evidence needs a correction; see below.", 400
        else:
            data = form.cleaned_data if method == Claim.Method.EVIDENCE else {}
            try:
                claim = claims.claim_create(
                    user=request.user,
                    author=author,
                    method=method,
                    evidence=data.get("evidence", ""),
                    links=data.get("links", []),
                    orcid_sign_in=orcid_sign_in,
                )
            except ClaimError as exc:
                error, status = str(exc), 400
            else:
                messages.success(request, _created_message(claim))
                return redirect("profiles:claim_detail", pk=claim.pk)
    context = {
        "author": author,
        "checks": proof.claim_method_checks(
            user=request.user, author=author, orcid_sign_in=orcid_sign_in
        ),
        "blocker": claims.claim_blocker(user=request.user, author=author),
        "contested": claims.claim_contested(user=request.user, author=author),
        "form": form,
        "error": error,
        "chosen": method,
    }
    return render(request, "profiles/claim_start.html", context, status=status)


def _created_message(claim: Claim) -> str:
    if claim.status == Claim.Status.APPROVED:
        return f"You hold {claim.author} now: {claims.claim_verification(claim)}."
    if claim.status == Claim.Status.DISPUTED:
        return (
            "Someone else holds or is claiming this record, so staff will review both claims. "
            "Nothing changes for either of you until they decide."
        )
    if claim.method == Claim.Method.EMAIL:
        return (
            f"Your claim waits for staff review. Your confirmed address {claim.verified_email} "
            "was recorded as evidence; it may help staff approve the claim faster."
        )
    return "Your claim was sent to staff for review."


def claims_visible_to(user) -> QuerySet[Claim]:
    """A member's own claims; every claim for staff the admin lets view claims."""
    if admin_allows(user, VIEW, Claim):
        return Claim.objects.all()
    return Claim.objects.filter(user=user)


def _visible_claim(request: HttpRequest, pk: int) -> Claim:
    claims_seen = claims_visible_to(request.user).select_related("author", "reviewer")
    return get_object_or_404(claims_seen, pk=pk)


@login_required
def claim_detail(request: HttpRequest, pk: int) -> HttpResponse:
    claim = _visible_claim(request, pk)
    context = {
        "claim": claim,
        "is_claimant": claim.user_id == request.user.pk,
        "level": claims.claim_level(claim) if claim.status == Claim.Status.APPROVED else None,
        "verification": claims.claim_verification(claim),
        "holds": claims.holds_record(claim),
    }
    return render(request, "profiles/claim_detail.html", context)


@login_required
@require_POST
def claim_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    claim = get_object_or_404(Claim, pk=pk, user=request.user)
    try:
        claims.claim_withdraw(claim=claim, user=request.user)
    except ClaimError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"You withdrew your claim on {claim.author}.")
    return redirect("profiles:claim_detail", pk=claim.pk)


@login_required
def claim_list(request: HttpRequest) -> HttpResponse:
    mine = Claim.objects.filter(user=request.user).select_related("author")
    return render(request, "profiles/claim_list.html", {"claims": mine})


# The owner's edits ------------------------------------------------------------------


def _owner_or_denied(request: HttpRequest, pk: int) -> Profile | HttpResponse:
    get_object_or_404(Author, pk=pk)
    profile = ownership.owned_profile(user=request.user, author_id=pk)
    if profile is None:
        return _denied(request, "Only the person who holds this record can change it.")
    return profile


def _edit_url(pk: int, page: str | None = None) -> str:
    url = reverse("profiles:profile_edit", kwargs={"pk": pk})
    return f"{url}?page={page}#works" if page and page.isdigit() else url


@login_required
def profile_edit(request: HttpRequest, pk: int) -> HttpResponse:
    profile = _owner_or_denied(request, pk)
    if isinstance(profile, HttpResponse):
        return profile
    form = ProfileForm.of(profile, request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            ownership.profile_update(profile=profile, actor=request.user, **form.cleaned_data)
        except ClaimError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, "Your profile is saved.")
            return redirect(_edit_url(pk))
    return _render_edit(request, profile, form=form, status=400 if form.errors else 200)


def _render_edit(request, profile: Profile, *, form=None, add_form=None, status=200):
    works = Paginator(selectors.author_works(profile.author), 20).get_page(request.GET.get("page"))
    context = {
        "profile": profile,
        "author": profile.author,
        "form": form or ProfileForm.of(profile),
        "add_form": add_form or AddWorkForm(),
        "disown_form": DisownForm(),
        "works": works,
        "pinned": list(profile.pinned_works.all()),
        "pinned_ids": set(profile.pinned_works.values_list("pk", flat=True)),
        "max_pinned": ownership.MAX_PINNED_WORKS,
        "additions": ownership.work_additions(author=profile.author),
        "removed": ownership.removed_works(author=profile.author),
    }
    return render(request, "profiles/profile_edit.html", context, status=status)


def _owner_work_action(request, pk: int, work_pk: int, action) -> HttpResponse:
    profile = _owner_or_denied(request, pk)
    if isinstance(profile, HttpResponse):
        return profile
    work = get_object_or_404(Work, pk=work_pk)
    try:
        done = action(profile, work)
    except ClaimError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, done)
    return redirect(_edit_url(pk, request.POST.get("page")))


@login_required
@require_POST
def work_pin(request: HttpRequest, pk: int, work_pk: int) -> HttpResponse:
    def pin(profile, work):
        ownership.work_pin(profile=profile, work=work, actor=request.user)
        return f"Pinned: {work}."

    return _owner_work_action(request, pk, work_pk, pin)


@login_required
@require_POST
def work_unpin(request: HttpRequest, pk: int, work_pk: int) -> HttpResponse:
    def unpin(profile, work):
        ownership.work_unpin(profile=profile, work=work, actor=request.user)
        return f"Unpinned: {work}."

    return _owner_work_action(request, pk, work_pk, unpin)


@login_required
@require_POST
def work_disown(request: HttpRequest, pk: int, work_pk: int) -> HttpResponse:
    form = DisownForm(request.POST)
    reason = form.cleaned_data["reason"] if form.is_valid() else ""

    def disown(profile, work):
        ownership.work_disown(profile=profile, work=work, actor=request.user, reason=reason)
        return f"Removed from your record: {work}. Later imports will not add it back."

    return _owner_work_action(request, pk, work_pk, disown)


@login_required
@require_POST
def work_restore(request: HttpRequest, pk: int, work_pk: int) -> HttpResponse:
    def restore(profile, work):
        ownership.work_restore(profile=profile, work=work, actor=request.user)
        return f"Back on your record: {work}."

    return _owner_work_action(request, pk, work_pk, restore)


@login_required
@require_POST
@ratelimit(key="user", rate=ownership.WORK_ADD_RATE, method="POST", block=True)
def work_add(request: HttpRequest, pk: int) -> HttpResponse:
    profile = _owner_or_denied(request, pk)
    if isinstance(profile, HttpResponse):
        return profile
    form = AddWorkForm(request.POST)
    if not form.is_valid():
        return _render_edit(request, profile, add_form=form, status=400)
    try:
        added = ownership.work_add(
            profile=profile, identifier=request.POST["identifier"], actor=request.user
        )
    except ClaimError as exc:
        form.add_error("identifier", str(exc))
        return _render_edit(request, profile, add_form=form, status=400)
    if added.work is not None:
        messages.success(request, f"Added to your record: {added.work}.")
    elif added.waits_to_be_sent():
        messages.success(
            request, f"{added.key} will be fetched shortly; it is added to your record then."
        )
    else:
        messages.success(
            request, f"Importing {added.key}; it is added to your record once imported."
        )
    return redirect(_edit_url(pk) + "#add-work")


# API token ----------------------------------------------------------------------------


@login_required
def api_token(request: HttpRequest) -> HttpResponse:
    """Create or replace the signed-in user's API token; the key is shown once."""
    shown = ""
    if request.method == "POST":
        Token.objects.filter(user=request.user).delete()
        shown = Token.objects.create(user=request.user).key
    has_token = bool(shown) or Token.objects.filter(user=request.user).exists()
    return render(request, "profiles/api_token.html", {"key": shown, "has_token": has_token})
