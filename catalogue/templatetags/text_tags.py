"""Filters that show imported text safely and briefly (see catalogue.safe_html, .display).

{% load text_tags %}
<h3>{{ work.title|safe_title }}</h3>
<div class="abstract">{{ work.abstract|safe_abstract }}</div>
<div class="abstract">{{ work.abstract|safe_abstract:"abstract_list" }}</div>
<title>{{ work.title|plain:"title" }}</title>
<a>{{ author.display_name|clip:"name" }}</a>
{{ work.abstract|abstract_preview:40 }}

Every filter shows at most a bounded number of characters (``display.LIMITS``)
and ends a cut text with "…", so a record of any length renders small and fast.
"""

from django import template

from catalogue import display

register = template.Library()


@register.filter
def clip(value, kind="name"):
    """Plain text cut to the ``kind``'s limit ("name", "title", "place", "note" or a number)."""
    return display.clip(value, kind)


@register.filter
def safe_abstract(value, kind="abstract"):
    """Paragraphs of sanitised HTML; scripts, handlers and links to code never survive.

    An abstract longer than the ``kind``'s limit is shown as plain text, cut with "…".
    """
    return display.abstract_html(value, kind)


@register.filter
def safe_title(value, kind="title"):
    """Inline sanitised HTML: italics, sub- and superscripts kept, everything else dropped.

    A title longer than the ``kind``'s limit is shown as plain text, cut with "…".
    """
    return display.title_html(value, kind)


@register.filter
def plain(value, kind="abstract"):
    """One line of plain text, no markup, cut to the ``kind``'s limit; the template escapes it."""
    return display.clip_line(value, kind)


@register.filter
def abstract_preview(value, words=40):
    """The first words of an abstract as plain text (escaped by the template), "…" if cut."""
    return display.preview(value, int(words))[0]


@register.filter
def is_long(value, words=40):
    """Whether ``abstract_preview`` with the same word count cuts the text."""
    return display.preview(value, int(words))[1]
