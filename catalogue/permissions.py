"""Who may do staff work: the admin's rule, for the API and the site's pages alike.

The admin lets an active staff member in, then asks for the model permission of
each step: view (or change) to read, add to create, change to decide, delete to
remove. Staff without a permission are refused outside the admin exactly as
inside it; being staff alone opens nothing.
"""

from __future__ import annotations

from django.contrib.auth import get_permission_codename
from django.db import models
from rest_framework.permissions import BasePermission

VIEW, ADD, CHANGE, DELETE = "view", "add", "change", "delete"


def admin_allows(user, action: str, model: type[models.Model]) -> bool:
    """Whether the admin would let ``user`` take ``action`` on rows of ``model``."""
    if user is None or not user.is_active or not user.is_staff:
        return False
    opts = model._meta
    # As ModelAdmin.has_view_permission: the change permission includes viewing.
    actions = [VIEW, CHANGE] if action == VIEW else [action]
    return any(
        user.has_perm(f"{opts.app_label}.{get_permission_codename(name, opts)}") for name in actions
    )


class AdminModelPermissions(BasePermission):
    """The admin's rule on an API view: view to read, add to create, change to update.

    A view's extra actions name what they need in ``admin_actions``
    (``{"cancel": "change"}``); the model is the view's queryset's.
    """

    by_method = {
        "GET": VIEW,
        "HEAD": VIEW,
        "OPTIONS": VIEW,
        "POST": ADD,
        "PUT": CHANGE,
        "PATCH": CHANGE,
        "DELETE": DELETE,
    }

    def has_permission(self, request, view) -> bool:
        action = getattr(view, "admin_actions", {}).get(getattr(view, "action", None))
        action = action or self.by_method.get(request.method)
        if action is None:
            return False
        return admin_allows(request.user, action, view.get_queryset().model)
