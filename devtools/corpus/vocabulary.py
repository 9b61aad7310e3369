"""The fixed vocabulary of the synthetic corpus, and its id and ORCID helpers."""

from __future__ import annotations

WORK_ID_BASE = 8_000_000_000  # W8000000001, ...
AUTHOR_ID_BASE = 8_000_000_000  # A8000000001, ...
INSTITUTION_ID_BASE = 8_000_000_000
VENUE_ID_BASE = 8_000_000_000
TOPIC_ID_BASE = 80_000  # T80001, ...
ARXIV_SOURCE = {
    "id": "https://openalex.org/S4306400194",
    "display_name": "arXiv (Cornell University)",
    "issn_l": None,
    "type": "repository",
}
ARXIV_NUMBER_START = 90_000
END_YEAR = 2024  # the last publication year; the snapshot date follows it
FIRST_YEAR = 1975
YEAR_DECAY = 9.0  # publication ages are exponential with this mean: recent years dominate
ARXIV_FIRST_YEAR = 2015  # five-digit arXiv numbers (YYMM.NNNNN) start in 2015
ARXIV_SHARE = 0.20
ORCID_SHARE = 0.30
OPENALEX = "https://openalex.org/"

# Team sizes 1..12, skewed small (mean about 3.6).
TEAM_SIZE_WEIGHTS = (14, 22, 20, 14, 9, 6, 4.5, 3.2, 2.4, 1.8, 1.4, 1.1)

REQUIRED_KEYS = (
    "id",
    "doi",
    "title",
    "display_name",
    "publication_year",
    "publication_date",
    "ids",
    "type",
    "primary_location",
    "authorships",
    "topics",
    "primary_topic",
    "abstract_inverted_index",
    "cited_by_count",
    "counts_by_year",
    "updated_date",
    "created_date",
)

_SYLLABLES = (
    "ka",
    "lo",
    "mi",
    "ven",
    "tor",
    "za",
    "ril",
    "bo",
    "nu",
    "shi",
    "qua",
    "dex",
    "mor",
    "fen",
    "pli",
    "gar",
    "zor",
    "vel",
    "tha",
    "kri",
    "son",
    "mab",
    "yu",
    "dro",
    "lin",
    "paz",
    "wex",
    "ori",
    "sel",
    "tam",
    "bri",
    "cul",
    "nad",
    "eph",
    "gol",
    "hiv",
    "jun",
    "kes",
)
_NOUNS = (
    "models",
    "networks",
    "dynamics",
    "inference",
    "systems",
    "structures",
    "signals",
    "processes",
    "methods",
    "estimators",
    "fields",
    "graphs",
    "markers",
    "responses",
    "patterns",
    "mechanisms",
    "representations",
    "measurements",
    "protocols",
    "spectra",
)
_ADJECTIVES = (
    "Scalable",
    "Robust",
    "Adaptive",
    "Sparse",
    "Stochastic",
    "Latent",
    "Coupled",
    "Hierarchical",
    "Efficient",
    "Nonlinear",
    "Distributed",
    "Bayesian",
    "Emergent",
    "Multiscale",
    "Causal",
    "Temporal",
)
_VERBS = ("study", "model", "measure", "compare", "characterise", "estimate", "simulate")
_FINDINGS = ("improves", "stabilises", "explains", "predicts", "reduces", "reveals")
_COUNTRIES = (
    "US",
    "GB",
    "DE",
    "FR",
    "CN",
    "JP",
    "CA",
    "IN",
    "BR",
    "AU",
    "NL",
    "IT",
    "ES",
    "KR",
    "CH",
    "SE",
    "ZA",
    "MX",
    "PL",
    "IL",
)
_INSTITUTION_TYPES = (
    ("education", 70),
    ("facility", 10),
    ("company", 8),
    ("government", 6),
    ("healthcare", 4),
    ("nonprofit", 2),
)
_WORK_TYPES = (("article", 86), ("review", 5), ("book-chapter", 5), ("dataset", 2), ("other", 2))

# OpenAlex's own taxonomy (subfield id, name, field id); names and ids as OpenAlex gives them.
_DOMAINS = {1: "Life Sciences", 2: "Social Sciences", 3: "Physical Sciences", 4: "Health Sciences"}
_FIELDS = {
    13: ("Biochemistry, Genetics and Molecular Biology", 1),
    17: ("Computer Science", 3),
    18: ("Decision Sciences", 2),
    20: ("Economics, Econometrics and Finance", 2),
    22: ("Engineering", 3),
    26: ("Mathematics", 3),
    27: ("Medicine", 4),
    28: ("Neuroscience", 1),
    31: ("Physics and Astronomy", 3),
    33: ("Social Sciences", 2),
}
_SUBFIELDS = (
    (1702, "Artificial Intelligence", 17),
    (1707, "Computer Vision and Pattern Recognition", 17),
    (1705, "Computer Networks and Communications", 17),
    (1710, "Information Systems", 17),
    (1706, "Computer Science Applications", 17),
    (2613, "Statistics and Probability", 26),
    (2604, "Applied Mathematics", 26),
    (3103, "Astronomy and Astrophysics", 31),
    (3106, "Nuclear and High Energy Physics", 31),
    (3109, "Statistical and Nonlinear Physics", 31),
    (2208, "Electrical and Electronic Engineering", 22),
    (1311, "Genetics", 13),
    (1312, "Molecular Biology", 13),
    (2804, "Cellular and Molecular Neuroscience", 28),
    (2705, "Cardiology and Cardiovascular Medicine", 27),
    (2739, "Public Health, Environmental and Occupational Health", 27),
    (2002, "Economics and Econometrics", 20),
    (1804, "Statistics, Probability and Uncertainty", 18),
    (3312, "Sociology and Political Science", 33),
    (3309, "Library and Information Sciences", 33),
)


def orcid_check_digit(base15: str) -> str:
    """The ISO 7064 11,2 check character of the first 15 digits of an ORCID iD."""
    total = 0
    for char in base15:
        total = (total + int(char)) * 2
    check = (12 - total % 11) % 11
    return "X" if check == 10 else str(check)


def synthetic_orcid(number: int) -> str:
    """A checksum-valid ORCID iD in the ``0009-8…`` block, for ``0 <= number < 10**10``."""
    digits = f"00098{number:010d}"
    body = f"{digits[0:4]}-{digits[4:8]}-{digits[8:12]}-{digits[12:15]}"
    return body + orcid_check_digit(digits)


_CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"


def synthetic_ror(number: int) -> str:
    """A ROR-shaped id (leading 0, six base-32 characters, mod 97-10 check digits)."""
    chars = []
    value = number
    for _ in range(6):
        value, digit = divmod(value, 32)
        chars.append(_CROCKFORD[digit])
    core = "0" + "".join(reversed(chars))
    decoded = 0
    for char in core:
        decoded = decoded * 32 + _CROCKFORD.index(char)
    check = 98 - (decoded * 100) % 97
    return f"https://ror.org/{core}{check:02d}"


def inverted_index(words: list[str]) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for position, word in enumerate(words):
        positions = index.get(word)
        if positions is None:
            index[word] = [position]
        else:
            positions.append(position)
    return index
