"""Filters that show imported text safely (see publications.safe_html).

{% load text_tags %}
<h3>{{ work.title|safe_title }}</h3>
<div class="abstract">{{ work.abstract|safe_abstract }}</div>
<title>{{ work.title|plain }}</title>
{{ work.abstract|abstract_preview:40 }}
"""

from django import template

from publications import safe_html
from publications.text import one_line

register = template.Library()


@register.filter
def safe_abstract(value):
    """Paragraphs of sanitised HTML; scripts, handlers and links to code never survive."""
    return safe_html.abstract_html(value)


@register.filter
def safe_title(value):
    """Inline sanitised HTML: italics, sub- and superscripts kept, everything else dropped."""
    return safe_html.title_html(value)


@register.filter
def plain(value):
    """Plain text on one line, markup removed; the template escapes it."""
    return one_line(value)


@register.filter
def abstract_preview(value, words=40):
    """The first words of an abstract as plain text (escaped by the template)."""
    return safe_html.preview_text(value, words=int(words))[0]


@register.filter
def is_long(value, words=40):
    """Whether ``abstract_preview`` with the same word count cuts the text."""
    return safe_html.preview_text(value, words=int(words))[1]
