"""Forms of the following and collaboration pages; the rules themselves live in the services."""

from __future__ import annotations

from django import forms

from profiles.collaboration import services as collab


class InvitationForm(forms.Form):
    topic = forms.CharField(
        min_length=collab.TOPIC_MIN,
        max_length=collab.TOPIC_MAX,
        help_text="What you would like to work on together, in a few words.",
    )
    message = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 5}),
        min_length=collab.MESSAGE_MIN,
        max_length=collab.MESSAGE_MAX,
        help_text=f"A short note: who you are and why. At most {collab.MESSAGE_MAX} characters.",
    )


class AcceptForm(forms.Form):
    reply = forms.CharField(
        label="Reply (optional)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=collab.BODY_MAX,
        help_text="Opens the conversation; you can also write later.",
    )


class MessageForm(forms.Form):
    body = forms.CharField(
        label="Your message",
        widget=forms.Textarea(attrs={"rows": 4}),
        max_length=collab.BODY_MAX,
    )


class ReportForm(forms.Form):
    reason = forms.CharField(
        label="What is wrong?",
        widget=forms.Textarea(attrs={"rows": 3}),
        min_length=collab.REASON_MIN,
        max_length=collab.REASON_MAX,
        help_text="Staff read every report.",
    )


class MisattributionForm(ReportForm):
    work = forms.TypedChoiceField(label="Work", coerce=int, choices=())

    field_order = ["work", "reason"]

    def __init__(self, *args, works=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["work"].choices = [("", "Choose the work")] + [
            (pk, title or f"Untitled work {pk}") for pk, title in works
        ]
        self.fields[
            "reason"
        ].help_text = (
            "How you know it is someone else's (for example a namesake at another institution)."
        )
