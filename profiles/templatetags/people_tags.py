from django import template

register = template.Library()


@register.inclusion_tag("profiles/_follow.html", takes_context=True)
def follow_button(context, author):
    """Follow / unfollow with the follower count."""
    return {"author": author, "request": context.get("request"), "user": context.get("user")}


@register.inclusion_tag("profiles/_claim_panel.html", takes_context=True)
def claim_panel(context, author):
    """Who holds this record, and how to claim it (one query)."""
    from profiles.claims import claim_panel_state

    request = context.get("request")
    user = getattr(request, "user", None) or context.get("user")
    state = claim_panel_state(author=author, user=user)
    return {"author": author, "request": request, "user": user, "state": state}


@register.inclusion_tag("profiles/_collaboration_panel.html", takes_context=True)
def collaboration_panel(context, author):
    """Direct invitations to a claimed researcher who is open to collaborate."""
    return {"author": author, "request": context.get("request"), "user": context.get("user")}
