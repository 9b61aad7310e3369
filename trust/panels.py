"""The trust snapshot section of the researcher page (``pages.researcher_page`` shows it)."""

from __future__ import annotations

from dataclasses import dataclass

from catalogue.models import Author
from trust import scoring, selectors, weights
from trust.models import TrustScore
from trust.sending import trust_score_request
from trust.sparkline import Sparkline, sparkline


@dataclass(frozen=True)
class TrustPanel:
    score: TrustScore | None  # None until a worker has scored the author
    components: list[dict]
    tier_label: str
    level_text: str
    spark: Sparkline | None
    queued: bool  # a worker was asked just now to score the author


def trust_panel(author: Author) -> TrustPanel:
    """The stored score and its history: at most two queries.

    An author with no stored score yet shows "not computed yet" and a worker is
    asked to score it; computing it here would take seven queries and a write.
    """
    snap = selectors.snapshot(author)
    score = snap.score
    return TrustPanel(
        score=score,
        components=scoring.expand_components(score.components) if score else [],
        tier_label=weights.tier_label(score.tier) if score else "",
        level_text=weights.LEVELS.get(score.level, "") if score else "",
        spark=sparkline(snap.history),
        queued=trust_score_request(author_id=author.pk) if score is None else False,
    )
