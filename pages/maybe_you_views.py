"""What the owner answers in "These may be you": "This is me", "Not me", and undo.

Thin: each view checks that the signed-in member holds the record (403 otherwise),
calls the service in ``curation.identity_requests`` and goes back to the section
on the owner's page with a message saying what happened.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from catalogue.models import Author, IdentityRequest, MergeCandidate, Work
from config.ratelimits import ratelimit
from curation import identity_requests as requests
from curation.undo import identity_request_undo
from profiles.claims.ownership import owned_profile

GROUP = "identity_requests"  # one rate for every answer an owner gives


def _owner_or_denied(request: HttpRequest, pk: int) -> Author | HttpResponse:
    author = get_object_or_404(Author, pk=pk)
    if owned_profile(user=request.user, author_id=author.pk) is None:
        message = "Only the person who holds this record can say who is who on it."
        return render(request, "profiles/claim_denied.html", {"message": message}, status=403)
    return author


def _back(author: Author) -> HttpResponse:
    return redirect(author.get_absolute_url() + "#maybe-you")


def _said(made: IdentityRequest) -> str:
    if made.status == IdentityRequest.Status.APPLIED:
        return (
            f"Done: {made.other_author} is part of your record now (your ORCID iD is on it). "
            "If that was a mistake, undo it below."
        )
    return "Sent to staff: they check the evidence and decide. You see their answer here."


def _ask(request: HttpRequest, pk: int, **target) -> HttpResponse:
    author = _owner_or_denied(request, pk)
    if isinstance(author, HttpResponse):
        return author
    try:
        made = requests.identity_request_make(author=author, user=request.user, **target)
    except ValueError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _said(made))
    return _back(author)


@login_required
@require_POST
@ratelimit(group=GROUP, key="user", rate=requests.REQUEST_RATE, method="POST", block=True)
def record_join(request: HttpRequest, pk: int, other_pk: int) -> HttpResponse:
    """ "This is me" on another record."""
    other = get_object_or_404(Author, pk=other_pk)
    return _ask(request, pk, kind=requests.JOIN_RECORD, other_author=other)


@login_required
@require_POST
@ratelimit(group=GROUP, key="user", rate=requests.REQUEST_RATE, method="POST", block=True)
def byline_join(request: HttpRequest, pk: int, work_pk: int, position: int) -> HttpResponse:
    """ "This is me" on a name no record holds."""
    work = get_object_or_404(Work, pk=work_pk)
    return _ask(request, pk, kind=requests.JOIN_BYLINE, work=work, position=position)


@login_required
@require_POST
@ratelimit(group=GROUP, key="user", rate=requests.REQUEST_RATE, method="POST", block=True)
def candidate_not_me(request: HttpRequest, pk: int, candidate_pk: int) -> HttpResponse:
    """ "Not me" on a merge candidate: the pair is kept apart."""
    author = _owner_or_denied(request, pk)
    if isinstance(author, HttpResponse):
        return author
    candidate = get_object_or_404(MergeCandidate, pk=candidate_pk)
    try:
        requests.identity_candidate_refuse(author=author, candidate=candidate, user=request.user)
    except ValueError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Noted: that record is someone else. It is not proposed again.")
    return _back(author)


@login_required
@require_POST
def request_undo(request: HttpRequest, pk: int, request_pk: int) -> HttpResponse:
    """Undo what one of the owner's applied requests changed."""
    author = _owner_or_denied(request, pk)
    if isinstance(author, HttpResponse):
        return author
    asked = get_object_or_404(
        IdentityRequest.objects.select_related("audit_event"), pk=request_pk, author=author
    )
    try:
        identity_request_undo(identity_request=asked, actor=request.user)
    except ValueError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Undone: your record is as it was before that request.")
    return _back(author)
