"""The follow box and the collaboration panel, redrawn after a press of their buttons.

The views that answer those presses (htmx or plain forms) build the partials'
context here from the same states ``pages.researcher_page.researcher_page`` gives the
whole page, so a redrawn panel looks as it did on the page.
"""

from __future__ import annotations

from django.http import HttpRequest

from catalogue.models import Author
from profiles.collaboration import selectors as collab_selectors
from profiles.collaboration.forms import InvitationForm
from profiles.following import services as following


def follow_fragment(request: HttpRequest, author: Author, *, next_url: str, error: str = ""):
    state = following.follow_state(author=author, user=request.user)
    return {
        "author": author,
        "state": state,
        "next": next_url,
        "error": error,
        "user": request.user,
        "request": request,
    }


def panel_context(request: HttpRequest, author: Author, **extra) -> dict:
    state = collab_selectors.collaboration_panel_state(author=author, user=request.user)
    if state.state == "can_invite" and extra.get("form") is None:
        extra["form"] = InvitationForm()
    return {"author": author, "panel": state, "user": request.user, "request": request, **extra}
