"""The form of the following page: the daily digest, on or off."""

from __future__ import annotations

from django import forms


class DigestForm(forms.Form):
    email_digest = forms.BooleanField(
        label="Send me a daily e-mail of new works by the researchers I follow",
        required=False,
    )
