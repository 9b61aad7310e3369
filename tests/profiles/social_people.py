"""The builders social tests import from here now live in tests/people.py, for the whole suite."""

from tests.people import ORCIDS, orcid_for, researcher, work_of

__all__ = ["ORCIDS", "orcid_for", "researcher", "work_of"]
