"""Forms of the claim and profile pages; the rules themselves live in the services."""

from __future__ import annotations

from django import forms

from profiles.claims import services as claims
from profiles.claims.ownership import WorkKey
from profiles.claims.services import ClaimError
from profiles.models import Profile


class EvidenceClaimForm(forms.Form):
    evidence = forms.CharField(
        label="Your evidence",
        min_length=claims.MIN_EVIDENCE_LENGTH,
        max_length=claims.MAX_EVIDENCE_LENGTH,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text=(
            "Who you are and how staff can check it: where you work or worked, "
            "papers only you would know about, an address at your institution."
        ),
    )
    links = forms.CharField(
        label="Links (optional)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=(
            f"Up to {claims.MAX_EVIDENCE_LINKS} web addresses, one per line: "
            "a staff page, a personal site, a CV."
        ),
    )

    def clean_links(self) -> list[str]:
        try:
            return claims.clean_links(self.cleaned_data["links"].splitlines())
        except ClaimError as exc:
            raise forms.ValidationError(str(exc)) from None


class ProfileForm(forms.Form):
    """What the owner says about themselves; ``profile_update`` saves it."""

    tagline = forms.CharField(
        label="Tagline",
        required=False,
        max_length=200,
        help_text="One line shown under your name (200 characters at most).",
    )
    homepage = forms.URLField(
        label="Homepage",
        required=False,
        max_length=500,
        assume_scheme="https",
        help_text="Your own page, starting with https://.",
    )
    open_to_collaborate = forms.BooleanField(
        label="Open to collaborate",
        required=False,
        help_text=(
            "Shows the badge on your page and lets signed-in researchers "
            "who claimed their record invite you."
        ),
    )

    @classmethod
    def of(cls, profile: Profile, data=None) -> ProfileForm:
        initial = {
            "tagline": profile.tagline,
            "homepage": profile.homepage,
            "open_to_collaborate": profile.open_to_collaborate,
        }
        return cls(data, initial=initial)


class AddWorkForm(forms.Form):
    identifier = forms.CharField(
        label="DOI or arXiv id",
        max_length=300,
        help_text="For example 10.1145/3297858.3304072 or 2103.03239.",
    )

    def clean_identifier(self) -> WorkKey:
        try:
            return WorkKey.parse(self.cleaned_data["identifier"])
        except ClaimError as exc:
            raise forms.ValidationError(str(exc)) from None


class DisownForm(forms.Form):
    reason = forms.CharField(
        label="Why is it not yours? (optional)", max_length=500, required=False
    )


class RejectClaimForm(forms.Form):
    reason = forms.CharField(
        label="Reason (the claimant sees it)",
        widget=forms.Textarea(attrs={"rows": 3}),
        max_length=2000,
    )


class ApproveClaimForm(forms.Form):
    note = forms.CharField(
        label="Note to the claimant (optional)",
        widget=forms.Textarea(attrs={"rows": 2}),
        max_length=2000,
        required=False,
    )
