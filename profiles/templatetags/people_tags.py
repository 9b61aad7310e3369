from django import template

from profiles.collaboration.selectors import unread_counts

register = template.Library()


@register.simple_tag(takes_context=True)
def inbox_unread(context) -> int:
    """How many things in the signed-in user's inbox are unread (one query; none for visitors).

    A page that read the counts already passes them as ``unread_total``.
    """
    if context.get("unread_total") is not None:
        return context["unread_total"]
    request = context.get("request")
    return unread_counts(getattr(request, "user", None))["total"]
