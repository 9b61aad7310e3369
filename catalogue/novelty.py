"""Novelty: the share of an author's works unlike every work held here before them.

Each work's *prior similarity* (``Work.prior_similarity``, written by
``similarity``) is the highest TF-IDF cosine, over title and abstract, between it
and any work held here published strictly before it, in any field. A work is
*new* when that is below ``NOVELTY_THRESHOLD``.

A work is *judged* only when at least ``MIN_EARLIER_WORKS`` works with a date and
a title or abstract were held here before it: against fewer, "nothing like it
before" says nothing. Those are counted apart, and so are the works without a
date or words (no prior similarity). Novelty is the share of the judged works
that are new; there is no figure when none is judged, and the description says why.

Since each work's earlier works are the works dated before it, the judged works
are those that start after the end of the ``MIN_EARLIER_WORKS``-th earliest work
(``Comparison.judged_after``), so one date answers it for every work. Dates are
read as the similarity corpus reads them: a year or month stands for all its days.
docs/METRICS.md describes the figure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import date, timedelta

from django.core.cache import cache
from django.db.models import Count, IntegerField, Q
from django.db.models.functions import Coalesce, ExtractYear

from catalogue.dates import DAY, MONTH, YEAR, PartialDate
from catalogue.models import AuthorMetrics, Authorship, Work
from catalogue.signals import metrics_refreshed

NOVELTY_THRESHOLD = 0.35  # prior similarity below which a work counts as new
MIN_EARLIER_WORKS = 10  # earlier works held here a work must have to be judged (1 or more)
# How long pages reuse the comparison set's size and cut-off date (a metrics refresh
# always counts afresh and renews it).
COMPARISON_SECONDS = 600


@dataclass(frozen=True)
class Comparison:
    """The works every work is compared with: those held here with a date and words."""

    works: int
    first_year: int | None
    last_year: int | None
    judged_after: date | None  # a work starting after this day has enough earlier works
    min_earlier: int = MIN_EARLIER_WORKS


@dataclass(frozen=True)
class NoveltyBasis:
    """What one author's Novelty is counted from."""

    new: int
    judged: int
    too_few_earlier: int  # had fewer than ``min_earlier`` works held here before it
    unknown: int  # no date, no words, or not compared yet
    comparison: Comparison

    @property
    def percent(self) -> float | None:
        return round(100 * self.new / self.judged, 1) if self.judged else None

    @property
    def description(self) -> str:
        return describe(self)


def _comparable():
    """Visible works with words to compare and a year to place them (the date's, else the year)."""
    year = Coalesce(
        ExtractYear("publication_date"), "publication_year", output_field=IntegerField()
    )
    works = Work.objects.visible().exclude(title="", abstract="").annotate(placed=year)
    return works.filter(placed__isnull=False)


def _end(published: date | None, year: int | None, precision: str) -> date:
    """The last day the work may have appeared (as ``similarity.corpus`` reads dates)."""
    return PartialDate.of(published, None if published else year, precision).span()[1]


def _year_of(per_year: list[tuple[int, int]], rank: int) -> tuple[int, int] | None:
    """The year holding the ``rank``-th earliest work, and how many works came before it."""
    before = 0
    for year, n in per_year:
        if before + n >= rank:
            return year, before
        before += n
    return None


def _count_comparison(min_earlier: int) -> Comparison:
    """The comparison set's size and years, and the day after which works are judged."""
    per_year = list(_comparable().values_list("placed").annotate(n=Count("id")).order_by("placed"))
    works = sum(n for _, n in per_year)
    first, last = (per_year[0][0], per_year[-1][0]) if per_year else (None, None)
    found = _year_of(per_year, min_earlier)
    if found is None:
        return Comparison(works, first, last, None, min_earlier)
    year, before = found
    rows = (
        _comparable()
        .filter(placed=year)
        .values_list("publication_date", "publication_year", "publication_date_precision")
        .annotate(n=Count("id"))
        .order_by()
    )
    for end, n in sorted((_end(day, y, precision), n) for day, y, precision, n in rows):
        before += n
        if before >= min_earlier:
            return Comparison(works, first, last, end, min_earlier)
    return Comparison(works, first, last, None, min_earlier)  # counts moved in between


def comparison(*, fresh: bool = False) -> Comparison:
    """The comparison set now: counted afresh, or as counted at most a few minutes ago."""
    key = f"novelty:comparison:{MIN_EARLIER_WORKS}"
    found = None if fresh else cache.get(key)
    if found is None:
        found = _count_comparison(MIN_EARLIER_WORKS)
        cache.set(key, found, COMPARISON_SECONDS)
    return found


def _starts_after(day: date) -> Q:
    """Authorships whose work's first possible day is after ``day``."""
    next_month = (day.replace(day=1) + timedelta(days=31)).replace(day=1)
    next_year = day.year + 1
    return (
        Q(work__publication_date_precision=DAY, work__publication_date__gt=day)
        | Q(work__publication_date_precision=MONTH, work__publication_date__gte=next_month)
        | Q(work__publication_date_precision=YEAR, work__publication_date__year__gte=next_year)
        | Q(work__publication_date__isnull=True, work__publication_year__gte=next_year)
    )


def novelty_bases(author_ids: Iterable[int], *, fresh: bool = False) -> dict[int, NoveltyBasis]:
    """Each author's Novelty basis (one query, and the comparison set's two when not kept)."""
    against = comparison(fresh=fresh)
    known = Q(work__prior_similarity__isnull=False)
    counts = {
        "works": Count("work_id", distinct=True),
        "known": Count("work_id", distinct=True, filter=known),
    }
    if against.judged_after is not None:
        judged = known & _starts_after(against.judged_after)
        new = judged & Q(work__prior_similarity__lt=NOVELTY_THRESHOLD)
        counts["judged"] = Count("work_id", distinct=True, filter=judged)
        counts["new"] = Count("work_id", distinct=True, filter=new)
    rows = (
        Authorship.objects.of_visible_works()
        .filter(author_id__in=list(author_ids))
        .values("author_id")
        .annotate(**counts)
        .order_by()
    )
    bases = {}
    for row in rows:
        judged, new = row.get("judged", 0), row.get("new", 0)
        known_works = row["known"]
        bases[row["author_id"]] = NoveltyBasis(
            new, judged, known_works - judged, row["works"] - known_works, against
        )
    return bases


def novelty_basis(author_id: int, metrics: AuthorMetrics | None = None) -> NoveltyBasis:
    """One author's Novelty basis, as the researcher page and the API give it: the one
    kept with the metrics when they were computed, else counted now."""
    kept = getattr(metrics, "novelty_basis", None)
    if kept:
        return _basis_from(kept)
    found = novelty_bases([author_id]).get(author_id)
    return found or NoveltyBasis(0, 0, 0, 0, comparison())


def _basis_to(basis: NoveltyBasis) -> dict:
    data = asdict(basis)
    after = basis.comparison.judged_after
    data["comparison"]["judged_after"] = after.isoformat() if after else None
    return data


def _basis_from(data: dict) -> NoveltyBasis:
    against = dict(data["comparison"])
    after = against.get("judged_after")
    against["judged_after"] = date.fromisoformat(after) if after else None
    fields = {k: data[k] for k in ("new", "judged", "too_few_earlier", "unknown")}
    return NoveltyBasis(**fields, comparison=Comparison(**against))


def novelty_set(rows: list[AuthorMetrics]) -> None:
    """Set the Novelty of these metrics rows, and what it was counted from, afresh."""
    bases = novelty_bases((row.author_id for row in rows), fresh=True)
    for row in rows:
        basis = bases.get(row.author_id) or NoveltyBasis(0, 0, 0, 0, comparison())
        row.novelty = basis.percent
        row.novelty_basis = _basis_to(basis)


def author_novelty_refresh(*, author_ids: Iterable[int]) -> int:
    """Set the Novelty of these authors' metrics rows (after prior similarities changed)."""
    rows = list(AuthorMetrics.objects.filter(author_id__in=set(author_ids)))
    novelty_set(rows)
    AuthorMetrics.objects.bulk_update(rows, ["novelty", "novelty_basis"], batch_size=500)
    metrics_refreshed.send(sender=AuthorMetrics, author_ids=[row.author_id for row in rows])
    return len(rows)


# What the page and the API say ----------------------------------------------------


def _works(n: int) -> str:
    return f"{n:,} work{'' if n == 1 else 's'}"


def _held(against: Comparison) -> str:
    """``412 works with a date and a title or abstract (1998–2024)``."""
    years = ""
    if against.first_year is not None:
        years = f" ({against.first_year}–{against.last_year})"
        years = years if against.first_year != against.last_year else f" ({against.first_year})"
    return f"{_works(against.works)} with a date and a title or abstract{years}"


def _since(against: Comparison) -> str:
    day = against.judged_after
    if day is None:
        return ""
    return f" (works published after {day.day} {day:%b %Y} have them)"


def describe(basis: NoveltyBasis) -> str:
    """In plain words: what the figure counts, what it compares against, what is left out."""
    against, k = basis.comparison, basis.comparison.min_earlier
    rule = (
        "Each work's title and abstract are compared (TF-IDF cosine) with those of the "
        "works held here published before it, in any field"
    )
    if basis.judged:
        text = (
            f"{basis.new} of {_works(basis.judged)} judged resemble no work held here "
            f"published before them (none scores {NOVELTY_THRESHOLD} or more). {rule}: "
            f"at least {k} earlier works each{_since(against)}, out of the "
            f"{_held(against)} held here."
        )
    elif basis.too_few_earlier:
        text = (
            f"No figure: none of these works had {k} earlier works held here to compare "
            f"with, and against fewer a work would look new whatever it says. {rule}; "
            f"the site holds {_held(against)}."
        )
    else:
        return (
            "No figure: none of these works has a date and a title or abstract "
            "compared with earlier works yet."
        )
    left_out = []
    if basis.judged and basis.too_few_earlier:
        left_out.append(f"{_works(basis.too_few_earlier)} with fewer than {k} earlier works here")
    if basis.unknown:
        left_out.append(f"{_works(basis.unknown)} without a date or words, or not compared yet")
    return text + (f" Left out: {'; '.join(left_out)}." if left_out else "")
