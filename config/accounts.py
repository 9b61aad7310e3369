"""allauth's adapter, changed only where the site has its own rule."""

from __future__ import annotations

from allauth.account.adapter import DefaultAccountAdapter
from django.core.exceptions import PermissionDenied

from config.clientip import client_ip


class AccountAdapter(DefaultAccountAdapter):
    def get_client_ip(self, request) -> str:
        """The sign-in limits key on the same address as every other limit."""
        address = client_ip(request)
        if not address:
            raise PermissionDenied("Unable to determine client IP address")
        return address
