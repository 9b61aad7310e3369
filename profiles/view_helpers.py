"""What the people layer's views share: the researcher they act on, where to go back,
sign-in for visitors, htmx fragments and rate limits read when a request comes."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django_htmx.http import HttpResponseClientRedirect

from catalogue.models import Author
from config.redirects import safe_next_url


def rate_from(module, name: str):
    """Read the rate when the request comes, so it follows the service module's setting."""
    return lambda group, request: getattr(module, name)


def author_or_404(pk: int) -> Author:
    return get_object_or_404(Author.objects.select_related("profile"), pk=pk, is_deleted=False)


def back_url(request: HttpRequest, fallback: str) -> str:
    """The page a form came from (``next``), if it is a path on this site."""
    return safe_next_url(request, fallback)


def sign_in_redirect(request: HttpRequest, back: str) -> HttpResponse:
    url = f"{reverse('account_login')}?{urlencode({'next': back})}"
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)


def partial(request: HttpRequest, template: str, context: dict, status: int = 200):
    return HttpResponse(render_to_string(template, context, request=request), status=status)
