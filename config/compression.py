"""Compress pages that carry no secret; leave the rest as they are (BREACH).

BREACH recovers a secret from the size of compressed responses that also reflect
what an attacker sends (a search query, a path). So a response is compressed only
when it can hold no secret: the visitor is signed out and the page put no CSRF
token in a form. That covers what most visitors load (researcher, work, search
and home pages read anonymously); pages with forms that post and every signed-in
page go uncompressed. Django's GZipMiddleware adds random bytes to each
compressed body as well ("Heal the Breach"), a second line for what slips past.
Static files are whitenoise's: it serves them pre-compressed.
"""

from __future__ import annotations

from django.middleware.gzip import GZipMiddleware


def carries_secret(request) -> bool:
    """Whether the response to this request may hold a secret worth guessing."""
    if "CSRF_COOKIE_NEEDS_UPDATE" in request.META:  # get_token() ran: a CSRF token is on the page
        return True
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated)


class SecretFreeGZipMiddleware(GZipMiddleware):
    def process_response(self, request, response):
        if response.streaming or carries_secret(request):
            return response
        return super().process_response(request, response)
