from django import template
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

from catalogue import display
from profiles.collaboration.selectors import unread_counts

register = template.Library()


@register.simple_tag(takes_context=True)
def inbox_unread(context) -> int:
    """How many things in the signed-in user's inbox are unread (one query; none for visitors)."""
    request = context.get("request")
    return unread_counts(getattr(request, "user", None))["total"]


def _plain(value) -> str:
    """A number as ``{% localize off %}`` prints it."""
    return conditional_escape(localize(value, use_l10n=False))


@register.simple_tag
def citations_chart(chart, name: str) -> SafeString:
    """The citations-per-year bar chart (SVG) and its table, for a researcher named ``name``:
    ``chart`` is a ``pages.charts.Chart``.

    Drawn here rather than by a template: a chart has a few hundred numbers to print.
    """
    n = _plain
    name = conditional_escape(display.clip(name, "name"))
    about = conditional_escape(chart.description)
    left, right, baseline = n(chart.left), n(chart.right), n(chart.baseline)
    out = [
        '<figure class="chart">\n    \n    <svg class="bar-chart" viewBox="0 0 '
        f'{n(chart.width)} {n(chart.height)}" role="img" aria-labelledby="chart-title '
        'chart-desc" focusable="false">\n      <title id="chart-title">Citations per year '
        f'of {name}</title>\n      <desc id="chart-desc">{about}</desc>\n      '
    ]
    for tick in chart.ticks:
        y = n(tick.y)
        out.append(
            f'\n      <line class="grid" x1="{left}" x2="{right}" y1="{y}" y2="{y}"/>\n'
            f'      <text class="axis" x="{n(chart.left - 6)}" y="{y}" dy="0.32em" '
            f'text-anchor="end">{n(tick.value)}</text>\n      '
        )
    out.append("\n      ")
    out += [_bar(chart, bar, baseline) for bar in chart.bars]
    out.append(
        f'\n      <line class="baseline" x1="{left}" x2="{right}" y1="{baseline}" '
        f'y2="{baseline}"/>\n    </svg>\n    \n    <figcaption class="muted small">{about}'
        '</figcaption>\n  </figure>\n  <table class="visually-hidden">\n    <caption>'
        f'Citations per year of {name}</caption>\n    <thead><tr><th scope="col">Year</th>'
        '<th scope="col">Citations</th></tr></thead>\n    <tbody>'
    )
    out += [
        f'<tr><th scope="row">{n(bar.year)}</th><td>{conditional_escape(localize(bar.value))}'
        "</td></tr>"
        for bar in chart.bars
    ]
    out.append("</tbody>\n  </table>")
    return mark_safe("".join(out))  # noqa: S308 - every value above is escaped


def _bar(chart, bar, baseline: str) -> str:
    n = _plain
    year, value, centre = n(bar.year), n(bar.value), n(bar.centre)
    plural = "" if bar.value == 1 else "s"
    text = [
        f'\n      <g class="bar-group">\n        <rect class="bar" x="{n(bar.x)}" '
        f'y="{n(bar.y)}" width="{n(bar.width)}" height="{n(bar.height)}" rx="2"><title>'
        f"{year}: {value} citation{plural}</title></rect>\n        "
    ]
    if chart.show_values and bar.value:
        text.append(
            f'<text class="value" x="{centre}" y="{n(bar.y)}" dy="-4" '
            f'text-anchor="middle">{value}</text>'
        )
    text.append("\n        ")
    if bar.show_year:
        text.append(
            f'<text class="axis" x="{centre}" y="{baseline}" dy="17" '
            f'text-anchor="middle">{year}</text>'
        )
    text.append("\n      </g>\n      ")
    return "".join(text)
