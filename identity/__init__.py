"""Who is who: grouping the bylines of works into people.

Pure Python, independent of the web application: ``names`` reads and compares
personal names, ``evidence`` weighs what two bylines (or two groups of them)
have in common, ``clusters`` groups the bylines of a name block under
constraints and ``resolve`` is the entry point; ``communities`` groups the
bylines of one record into the people it may hold.
"""

from identity.clusters import Candidate, Resolution, Thresholds, resolve
from identity.evidence import Byline, Evidence
from identity.explain import Explainer

__all__ = [
    "Byline",
    "Candidate",
    "Evidence",
    "Explainer",
    "Resolution",
    "Thresholds",
    "resolve",
]
