"""Forms of the staff curation pages in the admin."""

from __future__ import annotations

import re
from datetime import date

from django import forms
from django.core.exceptions import ValidationError

from catalogue.identifiers import (
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    normalize_orcid,
)
from catalogue.models import Source
from ingestion.importing.runs import KINDS
from ingestion.uploads import check_size, sniff

# What the "value" box holds for each kind of import (shown beside the form).
KIND_HELP = {
    "author": ("OpenAlex author id", "A5017898742 or https://openalex.org/A5017898742"),
    "orcid": ("ORCID iD", "0000-0002-1825-0097"),
    "dois": ("DOIs, one per line", "10.1103/physrevb.74.024520"),
    "filter": ("Works filter, key:value (several: comma or newline)", "author.id:A5017898742"),
    "query": ("arXiv search query", "au:del_maestro AND ti:checkerboard"),
    "ids": ("arXiv ids, one per line", "cond-mat/0603029"),
    "category": ("Category, from and to dates", "cs.LG 2024-01-01 2024-01-31"),
}
SOURCE_CHOICES = [(Source.OPENALEX, "OpenAlex"), (Source.ARXIV, "arXiv")]
KIND_ROWS = [
    (label, KIND_HELP[kind][0], KIND_HELP[kind][1])
    for source, label in SOURCE_CHOICES
    for kind in KIND_HELP
    if kind in KINDS[source]
]
KIND_CHOICES = [
    (label, [(kind, KIND_HELP[kind][0]) for kind in KIND_HELP if kind in KINDS[source]])
    for source, label in SOURCE_CHOICES
]


def _items(value: str) -> list[str]:
    return [part for part in re.split(r"[\s,;]+", value) if part]


def _author(value: str) -> dict:
    found = normalize_openalex_id(value.strip())
    if not found or not found.startswith("A"):
        raise ValidationError("Not an OpenAlex author id (A followed by digits).")
    return {"id": found}


def _orcid(value: str) -> dict:
    orcid = normalize_orcid(value)
    if not orcid:
        raise ValidationError("Not a valid ORCID iD (16 digits in four groups, checksum held).")
    return {"orcid": orcid}


def _dois(value: str) -> dict:
    lines = [line.strip() for line in value.splitlines() if line.strip()]
    bad = [line for line in lines if not (normalize_doi(line) or "").startswith("10.")]
    if bad:
        raise ValidationError(f"Not a DOI: {', '.join(bad[:5])}.")
    return {"dois": [normalize_doi(line) for line in lines]}


def _filter(value: str) -> dict:
    filters = {}
    for part in re.split(r"[,\n]+", value):
        key, sep, wanted = part.strip().partition(":")
        if not part.strip():
            continue
        if not sep or not key.strip() or not wanted.strip():
            raise ValidationError(
                f"Write each filter as key:value (for example author.id:A5017898742), "
                f"not {part.strip()!r}."
            )
        filters[key.strip()] = wanted.strip()
    return {"filter": filters}


def _query(value: str) -> dict:
    return {"query": " ".join(value.split())}


def _ids(value: str) -> dict:
    ids = _items(value)
    bad = [i for i in ids if not normalize_arxiv_id(i)]
    if bad:
        raise ValidationError(f"Not an arXiv id: {', '.join(bad[:5])}.")
    return {"ids": [normalize_arxiv_id(i) for i in ids]}


def _category(value: str) -> dict:
    parts = value.split()
    if len(parts) != 3:
        raise ValidationError("Write the category and two dates: cs.LG 2024-01-01 2024-01-31.")
    category, first, last = parts
    try:
        start, end = date.fromisoformat(first), date.fromisoformat(last)
    except ValueError as err:
        raise ValidationError("The dates must be written YYYY-MM-DD.") from err
    if start > end:
        raise ValidationError("The first date must not be after the second.")
    return {"category": category, "from": start.isoformat(), "to": end.isoformat()}


PARSERS = {
    "author": _author,
    "orcid": _orcid,
    "dois": _dois,
    "filter": _filter,
    "query": _query,
    "ids": _ids,
    "category": _category,
}


class ImportRunForm(forms.Form):
    """Source, kind and one value, or an uploaded recorded file.

    ``cleaned_data["parameters"]`` is what a run from the source is given; an
    accepted upload is in ``cleaned_data["upload"]`` with what it was sniffed to be
    (``cleaned_data["sniffed"]``), to be stored by the view.
    """

    source = forms.ChoiceField(choices=SOURCE_CHOICES)
    kind = forms.ChoiceField(choices=KIND_CHOICES)
    value = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 60}),
        help_text="See the table for what each kind of import takes.",
    )
    upload = forms.FileField(
        required=False,
        label="Recorded file",
        help_text=(
            "OpenAlex JSON (one entity or a list page), snapshot JSON Lines or an arXiv "
            "Atom feed, gzipped or not. Source and kind then come from the file."
        ),
    )

    def clean_upload(self):
        upload = self.cleaned_data.get("upload")
        if upload:
            check_size(upload)
            self.cleaned_data["sniffed"] = sniff(upload)
        return upload

    def clean(self):
        data = super().clean()
        if data.get("upload") or self.has_error("upload"):
            return data  # a file says what it is; the value box is not read
        source, kind, value = data.get("source"), data.get("kind"), data.get("value")
        if not value:
            self.add_error("value", "Enter what to import, or choose a recorded file.")
        if source and kind and kind not in KINDS[source]:
            names = ", ".join(KIND_HELP[k][0] for k in KIND_HELP if k in KINDS[source])
            self.add_error("kind", f"{dict(SOURCE_CHOICES)[source]} imports take: {names}.")
            return data
        if kind and value:
            try:
                data["parameters"] = PARSERS[kind](value)
            except ValidationError as err:
                self.add_error("value", err)
        return data


class AuthorSplitForm(forms.Form):
    work = forms.TypedMultipleChoiceField(coerce=int, label="Works to split off")
    new_name = forms.CharField(
        required=False,
        max_length=300,
        label="Name of the new record",
        help_text="Leave blank to keep the same name.",
    )

    def __init__(self, *args, works=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["work"].choices = [(w.pk, str(w)) for w in works]
