"""The filters of the graph explorer and the graph API."""

from __future__ import annotations

from django import forms

from graph.neighbourhood import CLOSE_COLLABORATOR_MIN_WORKS, SHOW_LABELS, SHOWABLE, Filters
from search.works import YearRangeForm

MAX_MIN_JOINT = 1000


class KindsWidget(forms.CheckboxSelectMultiple):
    """The kinds' checkboxes; a kind with nothing to show is switched off and unchecked."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.empty: frozenset[str] = frozenset()
        self.note_id = ""

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        if value in self.empty:
            option["selected"] = False
            option["attrs"].pop("checked", None)
            option["attrs"]["disabled"] = True
            if self.note_id:
                option["attrs"]["aria-describedby"] = self.note_id
        return option


class GraphFilterForm(YearRangeForm):
    kinds = forms.MultipleChoiceField(
        required=False,
        choices=list(SHOW_LABELS.items()),
        widget=KindsWidget,
        label="Show",
    )
    year_from = forms.IntegerField(required=False, min_value=1000, max_value=2100, label="From")
    year_to = forms.IntegerField(required=False, min_value=1000, max_value=2100, label="To")
    min_joint = forms.IntegerField(
        required=False, min_value=1, max_value=MAX_MIN_JOINT, label="At least … joint works"
    )
    find = forms.CharField(required=False, max_length=100, strip=True, label="Find in the list")

    def switch_off(self, empty, note_id: str) -> None:
        """Render the kinds in ``empty`` (nothing of them to show) disabled and unchecked."""
        widget = self.fields["kinds"].widget
        widget.empty = frozenset(empty)
        widget.note_id = note_id

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
