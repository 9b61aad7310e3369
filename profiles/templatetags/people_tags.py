from django import template

register = template.Library()


@register.inclusion_tag("profiles/_follow.html", takes_context=True)
def follow_button(context, author):
    """Follow / unfollow with the follower count (one query)."""
    from profiles.panels import follow_fragment

    request = context.get("request")
    return follow_fragment(request, author, next_url=request.get_full_path())


@register.inclusion_tag("profiles/_claim_panel.html", takes_context=True)
def claim_panel(context, author):
    """Who holds this record, and how to claim it (one query)."""
    from profiles.claims.services import claim_panel_state

    request = context.get("request")
    user = getattr(request, "user", None) or context.get("user")
    state = claim_panel_state(author=author, user=user)
    return {"author": author, "request": request, "user": user, "state": state}


@register.inclusion_tag("profiles/_collaboration_panel.html", takes_context=True)
def collaboration_panel(context, author):
    """Direct invitations to a claimed researcher who is open to collaborate (at most one query)."""
    from profiles.panels import panel_context

    return panel_context(context.get("request"), author)


@register.simple_tag(takes_context=True)
def inbox_unread(context) -> int:
    """How many things in the signed-in user's inbox are unread (one query; none for visitors)."""
    from profiles.collaboration.services import unread_counts

    request = context.get("request")
    return unread_counts(getattr(request, "user", None))["total"]
