"""Pages for the inbox, invitations, conversations, block and report.

Every write is a POST with its CSRF token and answers with a redirect (plain
forms) or the updated fragment (htmx). Lookups of invitations are scoped to the
two people in them: anyone else gets a 404, staff included (staff read reports
in the admin).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from catalogue.models import Work
from config.ratelimits import ratelimit
from profiles.collaboration import selectors as collab_selectors
from profiles.collaboration import services as collab
from profiles.collaboration.forms import (
    AcceptForm,
    InvitationForm,
    MessageForm,
    MisattributionForm,
    ReportForm,
)
from profiles.collaboration.services import CollaborationError
from profiles.models import Block, Invitation, Notification
from profiles.panels import panel_context
from profiles.view_helpers import author_or_404, back_url, partial, rate_from

NOTIFICATIONS_PER_PAGE = 30


# Invitations -----------------------------------------------------------------------------


def _invite_form_page(request, author, form, error="", status=200) -> HttpResponse:
    context = panel_context(request, author, form=form, error=error)
    if request.htmx:
        return partial(request, "profiles/_collaboration_panel.html", context)
    return render(request, "profiles/invitation_new.html", context, status=status)


@login_required
@ratelimit(key="user", rate=rate_from(collab, "INVITE_RATE"), method="POST", block=True)
def invite(request: HttpRequest, pk: int) -> HttpResponse:
    """Invite a claimed researcher who is open to collaborate."""
    author = author_or_404(pk)
    profile = getattr(author, "profile", None)
    if profile is None:
        return _invite_form_page(request, author, None)
    if request.method != "POST":
        return _invite_form_page(request, author, InvitationForm())
    form = InvitationForm(request.POST)
    if not form.is_valid():
        return _invite_form_page(request, author, form, "The invitation needs a correction.", 400)
    try:
        invitation = collab.invitation_create(
            sender=request.user, profile=profile, **form.cleaned_data
        )
    except CollaborationError as exc:
        return _invite_form_page(request, author, form, str(exc), 400)
    if request.htmx:
        context = panel_context(request, author, sent=invitation)
        return partial(request, "profiles/_collaboration_panel.html", context)
    messages.success(request, f"Invitation sent to {author.display_name}.")
    return redirect("profiles:conversation", pk=invitation.pk)


@login_required
@require_GET
def inbox(request: HttpRequest) -> HttpResponse:
    """Invitations to answer, conversations, sent invitations and the latest notifications."""
    box = collab_selectors.inbox_for(user=request.user)
    unread_ids = [n.pk for n in box.notifications if n.read_at is None]
    response = render(request, "profiles/inbox.html", {"box": box, "unread_ids": unread_ids})
    collab.notifications_mark_read(user=request.user, ids=unread_ids)
    return response


def _invitation(request: HttpRequest, pk: int) -> Invitation:
    """The invitation, if the signed-in user is one of its two people; else 404."""
    return get_object_or_404(collab.invitations_of(request.user), pk=pk)


def _conversation_page(
    request, invitation, *, message_form=None, report_form=None, accept_form=None, status=200
) -> HttpResponse:
    user = request.user
    other = collab.other_party(invitation, user)
    other_author = collab.other_author(invitation, user)
    context = {
        "invitation": invitation,
        "thread": invitation.messages.select_related("sender__profile__author"),
        "i_sent": invitation.sender_id == user.pk,
        "other_name": collab.other_name(invitation, user),
        "other": other,
        "other_author": other_author,
        "other_former": collab.other_is_former_holder(invitation, user),
        "closed": collab.conversation_closed(invitation),
        "blocked": other is not None and collab.blocked_between(user.pk, other.pk),
        "i_blocked": other and Block.objects.filter(blocker=user, blocked=other).first(),
        "message_form": message_form or MessageForm(),
        "report_form": report_form or ReportForm(),
        "accept_form": accept_form or AcceptForm(),
    }
    response = render(request, "profiles/inbox_conversation.html", context, status=status)
    collab.conversation_mark_read(invitation=invitation, user=user)
    return response


@login_required
@ratelimit(key="user", rate=rate_from(collab, "MESSAGE_RATE"), method="POST", block=True)
def conversation(request: HttpRequest, pk: int) -> HttpResponse:
    """One invitation and, once accepted, the conversation it became; POST writes a message."""
    invitation = _invitation(request, pk)
    if request.method != "POST":
        return _conversation_page(request, invitation)
    form = MessageForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Your message needs a correction; see below.")
        return _conversation_page(request, invitation, message_form=form, status=400)
    try:
        collab.message_send(
            invitation=invitation, user=request.user, body=form.cleaned_data["body"]
        )
    except CollaborationError as exc:
        messages.error(request, str(exc))
        return _conversation_page(request, invitation, message_form=form, status=400)
    return redirect(f"{reverse('profiles:conversation', args=[pk])}#latest")


@login_required
@require_POST
def invitation_accept(request: HttpRequest, pk: int) -> HttpResponse:
    invitation = _invitation(request, pk)
    form = AcceptForm(request.POST)
    if not form.is_valid():
        return _conversation_page(request, invitation, accept_form=form, status=400)
    try:
        collab.invitation_accept(
            invitation=invitation, user=request.user, reply=form.cleaned_data["reply"]
        )
    except CollaborationError as exc:
        messages.error(request, str(exc))
        return _conversation_page(request, invitation, accept_form=form, status=400)
    messages.success(request, "Invitation accepted: this is now a conversation.")
    return redirect("profiles:conversation", pk=pk)


@login_required
@require_POST
def invitation_decline(request: HttpRequest, pk: int) -> HttpResponse:
    invitation = _invitation(request, pk)
    try:
        collab.invitation_decline(invitation=invitation, user=request.user)
    except CollaborationError as exc:
        messages.error(request, str(exc))
        return _conversation_page(request, invitation, status=400)
    messages.success(request, "Invitation declined. The sender is told, without any reason.")
    return redirect("profiles:inbox")


# Block and report -------------------------------------------------------------------------


@login_required
@require_POST
@ratelimit(key="user", rate=rate_from(collab, "BLOCK_RATE"), block=True)
def block(request: HttpRequest, pk: int) -> HttpResponse:
    """Block the other person of an invitation or conversation."""
    invitation = _invitation(request, pk)
    other = collab.other_party(invitation, request.user)
    if other is None:
        messages.info(request, "This account no longer exists; there is no one to block.")
        return redirect("profiles:conversation", pk=pk)
    collab.block_create(blocker=request.user, blocked=other)
    name = collab.person_name(other)
    messages.success(
        request,
        f"You blocked {name}: neither of you can invite or write to the other. "
        "You can undo this from your inbox.",
    )
    return redirect("profiles:conversation", pk=pk)


@login_required
@require_POST
def unblock(request: HttpRequest, pk: int) -> HttpResponse:
    if collab.block_delete(blocker=request.user, block_id=pk):
        messages.success(request, "Unblocked.")
    return HttpResponseRedirect(back_url(request, reverse("profiles:inbox")))


@login_required
@require_POST
@ratelimit(key="user", rate=rate_from(collab, "REPORT_RATE"), block=True)
def report_conversation(request: HttpRequest, pk: int) -> HttpResponse:
    """Report the other person of an invitation or conversation to staff."""
    invitation = _invitation(request, pk)
    form = ReportForm(request.POST)
    if not form.is_valid():
        return _conversation_page(request, invitation, report_form=form, status=400)
    try:
        collab.report_abuse(
            reporter=request.user, invitation=invitation, reason=form.cleaned_data["reason"]
        )
    except CollaborationError as exc:
        messages.error(request, str(exc))
        return _conversation_page(request, invitation, report_form=form, status=400)
    messages.success(request, "Thank you: staff will look at your report.")
    return redirect("profiles:conversation", pk=pk)


@login_required
@ratelimit(key="user", rate=rate_from(collab, "REPORT_RATE"), method="POST", block=True)
def report_work(request: HttpRequest, pk: int) -> HttpResponse:
    """Report a work on a researcher's record that is not theirs."""
    author = author_or_404(pk)
    works = (
        Work.objects.visible().filter(authorships__author=author).order_by("title", "pk")
    ).values_list("pk", "title")
    form = MisattributionForm(
        request.POST or None, works=works, initial={"work": request.GET.get("work")}
    )
    status, error = 200, ""
    if request.method == "POST":
        status = 400
        if form.is_valid():
            work = get_object_or_404(Work, pk=form.cleaned_data["work"])
            try:
                _, created = collab.report_misattribution(
                    reporter=request.user,
                    author=author,
                    work=work,
                    reason=form.cleaned_data["reason"],
                )
            except CollaborationError as exc:
                error = str(exc)
            else:
                messages.success(
                    request,
                    "Thank you: staff will check this work."
                    if created
                    else "You already reported this work; staff will check it.",
                )
                return redirect(author)
        else:
            error = "The report needs a correction; see below."
    context = {"author": author, "form": form, "error": error}
    return render(request, "profiles/report_work.html", context, status=status)


# Notifications ----------------------------------------------------------------------------


@login_required
@require_GET
def notifications(request: HttpRequest) -> HttpResponse:
    """Every notification, newest first; those shown are marked read."""
    queryset = Notification.objects.filter(user=request.user).select_related("author", "work")
    page = Paginator(queryset, NOTIFICATIONS_PER_PAGE).get_page(request.GET.get("page"))
    unread_ids = [n.pk for n in page if n.read_at is None]
    context = {"page": page, "unread_ids": unread_ids}
    response = render(request, "profiles/notifications.html", context)
    collab.notifications_mark_read(user=request.user, ids=unread_ids)
    return response
