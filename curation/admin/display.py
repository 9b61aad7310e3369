"""How the admin lists and pages show values: JSON, durations, long text, progress."""

from __future__ import annotations

import json

from django import forms
from django.utils.html import format_html
from django.utils.safestring import mark_safe

PROGRESS_BAR = mark_safe('data-progress="bar" aria-label="Import progress"')


def surrogates_escaped(text: str) -> str:
    """``text`` with each lone surrogate written as its JSON escape, ``\\ud800``.

    A payload stored as a source sent it may hold one (JSON can escape half of a
    pair); a page cannot be encoded as UTF-8 with it, and the escape is what the
    JSON said.
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def pretty_json(value) -> str:
    if value in (None, "", {}, []):
        return "—"
    text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    return format_html('<pre class="curation-json">{}</pre>', surrogates_escaped(text))


class JSONFormField(forms.JSONField):
    """Django's JSON form field, showing lone surrogates escaped (they read back the same)."""

    def prepare_value(self, value):
        return surrogates_escaped(super().prepare_value(value))


def duration_text(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def shorten(text: str, size: int = 90) -> str:
    if not text:
        return ""
    if len(text) <= size:
        return text
    return format_html('<span title="{}">{}…</span>', text, text[: size - 1])


def progress_bar(percent: int | None) -> str:
    if percent is None:
        return format_html('<progress max="100" {}></progress>', PROGRESS_BAR)  # unknown total
    return format_html(
        '<progress max="100" value="{}" {}>{}%</progress>', percent, PROGRESS_BAR, percent
    )
