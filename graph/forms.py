"""The filters of the graph explorer and the graph API."""

from __future__ import annotations

from django import forms

from graph.neighbourhood import CLOSE_COLLABORATOR_MIN_WORKS, SHOW_LABELS, SHOWABLE, Filters
from publications.search import YearRangeForm

MAX_MIN_JOINT = 1000


class GraphFilterForm(YearRangeForm):
    kinds = forms.MultipleChoiceField(
        required=False,
        choices=list(SHOW_LABELS.items()),
        widget=forms.CheckboxSelectMultiple,
        label="Show",
    )
    year_from = forms.IntegerField(required=False, min_value=1000, max_value=2100, label="From")
    year_to = forms.IntegerField(required=False, min_value=1000, max_value=2100, label="To")
    min_joint = forms.IntegerField(
        required=False, min_value=1, max_value=MAX_MIN_JOINT, label="At least … joint works"
    )
    find = forms.CharField(required=False, max_length=100, strip=True, label="Find in the list")

    def filters(self) -> Filters:
        """The valid filters (a field that failed validation is left out)."""
        self.is_valid()
        data = getattr(self, "cleaned_data", {})
        return Filters(
            kinds=tuple(data.get("kinds") or SHOWABLE),
            year_from=data.get("year_from"),
            year_to=data.get("year_to"),
            min_joint=data.get("min_joint") or CLOSE_COLLABORATOR_MIN_WORKS,
        )
