from django import template

from profiles.collaboration.selectors import unread_counts

register = template.Library()


@register.simple_tag(takes_context=True)
def inbox_unread(context) -> int:
    """How many things in the signed-in user's inbox are unread (one query; none for visitors)."""
    request = context.get("request")
    return unread_counts(getattr(request, "user", None))["total"]
