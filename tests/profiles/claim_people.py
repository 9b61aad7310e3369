"""The builders claim tests import from here now live in tests/people.py, for the whole suite."""

from tests.people import ORCID, OTHER_ORCID, PASSWORD, holds, person, with_orcid

__all__ = ["ORCID", "OTHER_ORCID", "PASSWORD", "holds", "person", "with_orcid"]
