from django import template

from trust import scoring, selectors, services
from trust.sparkline import sparkline

register = template.Library()


@register.inclusion_tag("trust/_snapshot.html", takes_context=True)
def trust_snapshot(context, author):
    """The trust snapshot of a researcher page: at most two queries.

    An author with no stored score yet shows "not computed yet" and a worker is
    asked to score it; computing it here would take seven queries and a write.
    """
    snap = selectors.snapshot(author)
    queued = False
    if snap.score is None:
        queued = services.trust_score_request(author_id=author.pk)
    return {
        "author": author,
        "request": context.get("request"),
        "trust": snap.score,
        "components": scoring.expand_components(snap.score.components) if snap.score else [],
        "tier_label": scoring.tier_label(snap.score.tier) if snap.score else "",
        "level_text": scoring.LEVELS.get(snap.score.level, "") if snap.score else "",
        "spark": sparkline(snap.history),
        "queued": queued,
    }
