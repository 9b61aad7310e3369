"""Names on a byline as citation formats need them: a family and a given name, or a
group's name kept whole."""

from __future__ import annotations

import re

_PARTICLES = {
    "van",
    "von",
    "der",
    "den",
    "de",
    "del",
    "della",
    "di",
    "da",
    "du",
    "la",
    "le",
    "ter",
    "ten",
    "bin",
    "ibn",
    "al",
    "dos",
    "das",
    "do",
    "zu",
}


def family_given(name: str) -> tuple[str, str]:
    """Split a display name into (family, given): "Ada M. Lovelace" -> ("Lovelace", "Ada M.")."""
    if "," in name:
        family, given = name.split(",", 1)
        return family.strip(), given.strip()
    words = name.split()
    if len(words) < 2 or is_corporate(name):
        return name.strip(), ""
    # Particles belong to the family name, written small or capital: "Ludwig van
    # Beethoven", "Alistair Van Moere", "Adrian Del Maestro".
    start = len(words) - 1
    while start > 1 and words[start - 1].lower() in _PARTICLES:
        start -= 1
    return " ".join(words[start:]), " ".join(words[:start])


# Last words that name an organisation, not a person ("World Bank", "ATLAS Collaboration").
_ORGANISATION_WORDS = {
    "agency",
    "alliance",
    "association",
    "authority",
    "bank",
    "board",
    "bureau",
    "center",
    "centre",
    "collaboration",
    "commission",
    "committee",
    "company",
    "consortium",
    "corporation",
    "council",
    "department",
    "federation",
    "foundation",
    "group",
    "inc",
    "initiative",
    "institute",
    "laboratory",
    "llc",
    "ltd",
    "ministry",
    "network",
    "office",
    "organisation",
    "organization",
    "program",
    "programme",
    "project",
    "secretariat",
    "society",
    "survey",
    "team",
    "university",
}


def is_corporate(name: str) -> bool:
    """A group's name, kept whole: never split into a family and a given name.

    A name with "and" ("Barnes and Noble"), one that starts with "The", one whose
    last word names an organisation ("World Bank", "ATLAS Collaboration"), or
    that starts with one and "of" ("University of Oxford"), or an acronym ("OECD").
    """
    words = [word.strip(".,").lower() for word in name.split()]
    if not words:
        return False
    if re.search(r"\band\b", name, re.IGNORECASE):
        return True
    if len(words) == 1:
        return len(name.strip()) > 1 and name.strip().isalpha() and name.strip().isupper()
    return (
        words[0] == "the"
        or words[-1] in _ORGANISATION_WORDS
        or (words[0] in _ORGANISATION_WORDS and words[1] == "of")
    )
