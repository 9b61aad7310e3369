"""allauth's adapters and sign-up form, changed only where the site has its own rule."""

from __future__ import annotations

from urllib.parse import urlsplit

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.forms import SignupForm as AllauthSignupForm
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.models import SocialApp
from django.contrib.auth.hashers import make_password
from django.core.exceptions import PermissionDenied
from django.http import Http404

from config.clientip import client_ip
from config.sites import absolute_url


def on_public_site(url: str) -> str:
    """``url`` (absolute or a path) as the same path on ``SITE_URL``.

    allauth builds a mail's links with ``request.build_absolute_uri``: from the
    Host header, which whoever asks for a password reset chooses. A link in a
    mail goes to the public site whatever the request said its host was (only a
    DEBUG run without ``SITE_URL`` follows the request, see ``config.sites``).
    """
    parts = urlsplit(url)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    if parts.fragment:
        path += "#" + parts.fragment
    return absolute_url(path)


class AccountAdapter(DefaultAccountAdapter):
    def get_client_ip(self, request) -> str:
        """The sign-in limits key on the same address as every other limit."""
        address = client_ip(request)
        if not address:
            raise PermissionDenied("Unable to determine client IP address")
        return address

    def get_reset_password_from_key_url(self, key: str) -> str:
        return on_public_site(super().get_reset_password_from_key_url(key))

    def get_email_confirmation_url(self, request, emailconfirmation) -> str:
        return on_public_site(super().get_email_confirmation_url(request, emailconfirmation))

    def send_mail(self, template_prefix: str, email: str, context: dict) -> None:
        # The other links allauth puts in a mail (``signup_url`` and
        # ``password_reset_url`` of the "unknown account" and "account already
        # exists" mails) are built by its flows, out of this adapter's reach.
        context = {
            key: on_public_site(value) if key.endswith("_url") and isinstance(value, str) else value
            for key, value in context.items()
        }
        super().send_mail(template_prefix, email, context)


class SignupForm(AllauthSignupForm):
    """allauth's sign-up form, as slow for an address that has an account as for a new one.

    With enumeration prevention both answer alike and send one mail (a
    confirmation, or "you already have an account"). Hashing the new account's
    password is most of a sign-up's time, so the password given with a known
    address is hashed too (and dropped): the time of the answer tells nothing.
    """

    def try_save(self, request):
        if self.account_already_exists:
            make_password(self.cleaned_data.get("password1"))
        return super().try_save(request)


class ProviderNotSetUp(SocialApp.DoesNotExist, Http404):
    """No app (client id and secret) for a sign-in provider: its pages are not found.

    Still a ``SocialApp.DoesNotExist`` for allauth's own code that catches that,
    and silent in templates as that is.
    """


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    def get_app(self, request, provider, client_id=None):
        """The provider's app; its sign-in and callback pages answer 404 when it has none."""
        try:
            return super().get_app(request, provider, client_id=client_id)
        except SocialApp.DoesNotExist:
            raise ProviderNotSetUp(f"{provider} sign-in is not set up") from None
