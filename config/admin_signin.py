"""The admin's sign-in limit, kept by django-axes.

The site's own sign-in (allauth) has its limits (ACCOUNT_RATE_LIMITS); the
admin's login form had none. Axes counts failed admin sign-ins per username
and client address and refuses that pair, even with the right password, until
the cool-off has passed. Sign-ins elsewhere are neither counted nor refused
here, so a member is never shown the admin's lockout.
"""

from __future__ import annotations

from axes.backends import AxesStandaloneBackend
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_cool_off, get_failure_limit
from django.http import HttpResponse
from django.shortcuts import render


class AdminSignInBackend(AxesStandaloneBackend):
    """Refuse a locked-out admin sign-in; let every other ``authenticate`` through."""

    def authenticate(self, request=None, username=None, password=None, **kwargs):
        if request is None:
            return None  # no request, no admin form: nothing to count or refuse
        return super().authenticate(request, username=username, password=password, **kwargs)


class AdminSignInHandler(AxesDatabaseHandler):
    """Record sign-ins made through the admin only."""

    def user_login_failed(self, sender, credentials: dict, request=None, **kwargs):
        if request is not None and self.is_admin_request(request):
            super().user_login_failed(sender, credentials, request, **kwargs)

    def user_logged_in(self, sender, request, user, **kwargs):
        if request is not None and self.is_admin_request(request):
            super().user_logged_in(sender, request, user, **kwargs)

    def user_logged_out(self, sender, request, user, **kwargs):
        if request is not None and self.is_admin_request(request):
            super().user_logged_out(sender, request, user, **kwargs)


def locked_out(request, original_response=None, credentials=None) -> HttpResponse:
    """The page a paused admin sign-in answers with: 429, what happened and how long to wait."""
    cool_off = get_cool_off(request)
    seconds = int(cool_off.total_seconds()) if cool_off else 0
    context = {
        "failure_limit": get_failure_limit(request, credentials),
        "minutes": -(-seconds // 60),
    }
    response = render(request, "admin/locked_out.html", context, status=429)
    if seconds:
        response["Retry-After"] = str(seconds)
    return response
