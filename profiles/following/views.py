"""Pages for following researchers: follow, unfollow, citation alerts, the feed, the digest.

Every write is a POST with its CSRF token and answers with a redirect (plain
forms) or the updated follow box (htmx).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from catalogue.models import Author
from config.ratelimits import ratelimit
from profiles.following import services as following
from profiles.following.forms import DigestForm
from profiles.following.services import FollowError
from profiles.panels import follow_fragment
from profiles.view_helpers import author_or_404, back_url, partial, rate_from, sign_in_redirect


def _follow_answer(request: HttpRequest, author: Author, error: str = "") -> HttpResponse:
    back = back_url(request, author.get_absolute_url())
    if request.htmx:
        context = follow_fragment(request, author, next_url=back, error=error)
        context["glance_oob"] = True  # the page's "At a glance" figure follows the new count
        return partial(request, "profiles/_follow_box.html", context)
    if error:
        messages.error(request, error)
    return HttpResponseRedirect(back)


@require_POST
@ratelimit(group="follow", key="user_or_ip", rate=rate_from(following, "FOLLOW_RATE"), block=True)
def follow(request: HttpRequest, pk: int) -> HttpResponse:
    """Follow a researcher; visitors are sent to sign in and brought back to the page."""
    author = author_or_404(pk)
    if not request.user.is_authenticated:
        return sign_in_redirect(request, back_url(request, author.get_absolute_url()))
    try:
        following.follow_create(user=request.user, author=author)
    except FollowError as exc:
        return _follow_answer(request, author, str(exc))
    return _follow_answer(request, author)


@require_POST
@ratelimit(group="follow", key="user_or_ip", rate=rate_from(following, "FOLLOW_RATE"), block=True)
def unfollow(request: HttpRequest, pk: int) -> HttpResponse:
    author = author_or_404(pk)
    if not request.user.is_authenticated:
        return sign_in_redirect(request, back_url(request, author.get_absolute_url()))
    following.follow_delete(user=request.user, author=author)
    return _follow_answer(request, author)


@require_POST
@ratelimit(group="follow", key="user_or_ip", rate=rate_from(following, "FOLLOW_RATE"), block=True)
def citation_alerts(request: HttpRequest, pk: int) -> HttpResponse:
    """Turn alerts about new citations of a followed researcher's works on (on=1) or off."""
    author = author_or_404(pk)
    if not request.user.is_authenticated:
        return sign_in_redirect(request, back_url(request, author.get_absolute_url()))
    on = request.POST.get("on") == "1"
    try:
        following.follow_citation_alerts_set(user=request.user, author=author, on=on)
    except FollowError as exc:
        return _follow_answer(request, author, str(exc))
    return _follow_answer(request, author)


@login_required
@require_GET
def following_page(request: HttpRequest) -> HttpResponse:
    """New works of followed researchers since the last visit, then their recent works."""
    feed = following.following_feed(user=request.user)
    form = DigestForm(initial={"email_digest": feed.preferences.email_digest})
    return render(request, "profiles/following.html", {"feed": feed, "digest_form": form})


@login_required
@require_http_methods(["GET", "POST"])
def digest_preferences(request: HttpRequest) -> HttpResponse:
    """Turn the daily digest on or off; a GET (a bookmark, a typed address) is sent to the
    form, on the following page."""
    if request.method == "GET":
        return HttpResponseRedirect(f"{reverse('profiles:following')}#digest-title")
    form = DigestForm(request.POST)
    form.is_valid()  # a checkbox: absent means off, nothing can be invalid
    on = bool(form.cleaned_data.get("email_digest"))
    following.preferences_update(user=request.user, email_digest=on)
    messages.success(
        request,
        "The daily digest is on: it is sent each morning when there is something new."
        if on
        else "The daily digest is off.",
    )
    return redirect("profiles:following")
