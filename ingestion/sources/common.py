"""Small parsers both sources share."""

from __future__ import annotations

from datetime import UTC, datetime


def parse_datetime(value: object) -> datetime | None:
    """An ISO date or datetime string as an aware datetime (naive values are UTC), else None."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
