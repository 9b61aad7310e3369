"""Links that keep the current query string but change some of its parameters."""

from django import template
from django.http import QueryDict

register = template.Library()


@register.simple_tag(takes_context=True)
def query_with(context, **changes) -> str:
    """``?…`` of the current request with ``changes`` applied; an empty value drops the key.

    The page number is always dropped unless given, since a new filter starts at page 1.
    """
    request = context["request"]
    params: QueryDict = request.GET.copy()
    params.pop("page", None)
    for key, value in changes.items():
        if value in ("", None):
            params.pop(key, None)
        else:
            params[key] = str(value)
    encoded = params.urlencode()
    return f"?{encoded}" if encoded else "?"
