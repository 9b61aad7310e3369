"""The query filters of the read API (``pages.api.works``).

Work lists take the researcher page's filters (``catalogue.filters``), with
``?has_code=`` answering 400 unless it is true or false. A work list asked for
no filter and no sort is given in the default order without building the
filter form, which would change nothing.
"""

from __future__ import annotations

from django import forms
from django_filters import rest_framework as filters

from catalogue.filters import ORDERINGS, CodeFilter, Sort, WorkFilter
from catalogue.models import Author, Institution, Topic


class TrueOrFalseField(forms.NullBooleanField):
    """true or false; any other value is an error (the page's select would ignore it)."""

    widget = forms.TextInput
    VALUES = {"true": True, "True": True, "1": True, "false": False, "False": False, "0": False}

    def to_python(self, value):
        if value in (None, ""):
            return None
        if value not in self.VALUES:
            raise forms.ValidationError("Enter true or false.", code="invalid")
        return self.VALUES[value]


class StrictCodeFilter(CodeFilter):
    field_class = TrueOrFalseField


class WorkListFilter(WorkFilter):
    """The researcher page's filters, with ``?has_code=`` answering 400 unless true or false."""

    has_code = StrictCodeFilter(
        method="_has_code",
        help_text="true: only works with a code link; false: only works without one.",
    )


class WorkFilterBackend(filters.DjangoFilterBackend):
    """The filter backend of work lists (``WorkListFilter``); without any of its
    parameters, the list in the default order."""

    def filter_queryset(self, request, queryset, view):
        filterset = self.get_filterset_class(view, queryset)
        if filterset is not None and not filterset.base_filters.keys() & request.query_params:
            return queryset.order_by(*ORDERINGS[Sort.DEFAULT])
        return super().filter_queryset(request, queryset, view)


class AuthorListFilter(filters.FilterSet):
    orcid = filters.CharFilter(help_text="An ORCID iD, e.g. 0000-0002-1825-0097.")
    openalex_id = filters.CharFilter(help_text="An OpenAlex author id, e.g. A5023888391.")

    class Meta:
        model = Author
        fields = ["orcid", "openalex_id"]


class TopicFilter(filters.FilterSet):
    kind = filters.ChoiceFilter(choices=Topic.Kind.choices)
    key = filters.CharFilter(help_text='e.g. "arxiv:cs.LG".')

    class Meta:
        model = Topic
        fields = ["kind", "key"]


class InstitutionFilter(filters.FilterSet):
    ror = filters.CharFilter()
    country_code = filters.CharFilter(help_text="Two letters, e.g. CA.")

    class Meta:
        model = Institution
        fields = ["ror", "country_code"]
