"""Publication dates as precise as their source gives them: a year, a month or a day.

A work keeps its date in a ``DateField`` that holds the first day of what the
source knows (``2023-01-01`` for "2023", ``2023-03-01`` for "March 2023") and the
precision beside it. Pages, meta tags, the API and every export write the date
through ``PartialDate``, so none of them shows a day or a month the source did
not give. docs/DATES.md says how each source's precision is decided.
"""

from __future__ import annotations

from calendar import monthrange
from dataclasses import dataclass
from datetime import date

YEAR, MONTH, DAY = "year", "month", "day"
PRECISIONS = (YEAR, MONTH, DAY)
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@dataclass(frozen=True, slots=True)
class PartialDate:
    """A year, a year and month, or a whole date."""

    year: int
    month: int | None = None
    day: int | None = None

    @classmethod
    def of(cls, day: date | None, year: int | None, precision: str = DAY) -> PartialDate | None:
        """The date a work states: ``day`` cut to ``precision``, else its bare ``year``.

        A date from another year than ``year`` (rows written before the one date
        rule) is not the publication's: only the year is stated then.
        """
        if day is None or (year is not None and day.year != year):
            return cls(year) if year else None
        if precision == YEAR:
            return cls(day.year)
        if precision == MONTH:
            return cls(day.year, day.month)
        return cls(day.year, day.month, day.day)

    @property
    def precision(self) -> str:
        return DAY if self.day else MONTH if self.month else YEAR

    def parts(self) -> list[int]:
        """``[2023]``, ``[2023, 3]`` or ``[2023, 3, 4]`` (CSL's date-parts)."""
        return [part for part in (self.year, self.month, self.day) if part]

    def joined(self, separator: str) -> str:
        """``2023``, ``2023/03`` or ``2023/03/04`` with ``separator`` "/"."""
        return separator.join(f"{part:02d}" for part in self.parts())

    def span(self) -> tuple[date, date]:
        """The first and the last day this date may stand for."""
        if self.day:
            day = date(self.year, self.month, self.day)
            return day, day
        if self.month:
            last = monthrange(self.year, self.month)[1]
            return date(self.year, self.month, 1), date(self.year, self.month, last)
        return date(self.year, 1, 1), date(self.year, 12, 31)

    @property
    def iso(self) -> str:
        """ISO 8601 at this precision: ``2023``, ``2023-03`` or ``2023-03-04``."""
        return self.joined("-")

    def __str__(self) -> str:
        """As pages write it: ``2023``, ``Mar 2023`` or ``4 Mar 2023``."""
        words = [str(self.day)] if self.day else []
        words += [_MONTHS[self.month - 1]] if self.month else []
        return " ".join([*words, str(self.year)])


def openalex_precision(day: date) -> str:
    """How much of an OpenAlex ``publication_date`` the source knows.

    OpenAlex always writes a whole date and fills what it does not know with 1:
    a year alone becomes 1 January, a year and month the first of the month.
    Such a date is read at that precision; it costs a real first of the month
    its day, never states a day or month that nobody gave.
    """
    if day.month == 1 and day.day == 1:
        return YEAR
    if day.day == 1:
        return MONTH
    return DAY


def finer(first: str, second: str) -> bool:
    """Whether precision ``first`` says more than ``second``."""
    return PRECISIONS.index(first) > PRECISIONS.index(second)
