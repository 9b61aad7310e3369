"""Personal names as bylines print them: parsing, compatibility and blocking.

A byline name is read into a surname and a list of given-name parts, each part
an initial with, when printed, its full form. Two names are *compatible* when
they may denote one person: same surname (accents, transliteration, capitals,
hyphens and particles aside) and given names that agree where both are given
("A. Del Maestro" / "Adrian Del Maestro", "Andrew Wilson" / "Andrew T. Wilson",
"Frank" / "Francis" through a table of usual variants). The level of agreement
is kept, because "Martin" = "Martin" says more than "M." = "Martin".

The blocking key (surname core + first initial) puts every compatible pair
into one block: particles and all but the last hyphenated part are left out of
it, so "Del Maestro" and "Maestro", "Rebholz-Schuhmann" and "Schuhmann" meet.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from identity.tables import (
    COMMON_GIVEN,
    COMMON_SURNAMES,
    CROSS_INITIAL_NICKNAMES,
    NICKNAME_GROUPS,
    PARTICLES,
    SHORT_GIVEN,
    TRANSLITERATION,
)

# Levels of agreement between two names, weakest first.
INCOMPATIBLE = 0
SURNAME_ONLY = 1  # one side has no given name at all
INITIALS = 2  # agree only through initials ("M." / "Martin")
VARIANT = 3  # full first names agree as variants ("Frank" / "Francis", "Chris" / "Christopher")
FULL = 4  # full first names equal, middle names agree where both are given
EXACT = 5  # every given part printed in full and equal

SUFFIXES = frozenset(["jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "phd", "ph.d.", "md", "m.d."])
APOSTROPHES = "'’`´ʼ"
DASHES = "‐‑‒–—―−"
VOWELS = frozenset("aeiouy")
GERMAN_VOWELS = {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue"}

_DASH_TABLE = str.maketrans({**{ch: "-" for ch in DASHES}, **dict.fromkeys(APOSTROPHES)})
_GERMAN_TABLE = str.maketrans(GERMAN_VOWELS)
_HYPHEN_SPACES = re.compile(r"\s*-\s*")
_NOT_NAME = re.compile(r"[^\w.,\- ]+")
_SPACES = re.compile(r"\s+")
_TRANSLIT = str.maketrans(TRANSLITERATION)
_NICKNAMES: dict[str, set[int]] = {}
_FORMAL_INITIAL: dict[str, str] = {}
for _index, _group in enumerate(NICKNAME_GROUPS):
    for _member in _group:
        _NICKNAMES.setdefault(_member, set()).add(_index)
        if _member in CROSS_INITIAL_NICKNAMES:
            _FORMAL_INITIAL[_member] = _group[0][0]


@dataclass(frozen=True, slots=True)
class Part:
    """One given name: its initial and, when printed in full, the whole of it."""

    initial: str
    full: str = ""


@dataclass(frozen=True, slots=True)
class Name:
    raw: str
    surname: str  # folded, particles kept, as printed ("del maestro")
    cores: frozenset[str]  # surname without particles, spaces or hyphens, with spelling variants
    parts: tuple[str, ...]  # the words of the core ("rebholz", "schuhmann")
    given: tuple[Part, ...]
    block: str  # blocking key: last part of the core + first initial
    is_common: bool  # a surname borne by very many researchers: namesakes are the rule
    given_is_common: bool  # no full first name, or a very frequent one

    @property
    def first(self) -> Part | None:
        return self.given[0] if self.given else None

    def display(self) -> str:
        given = " ".join(p.full.title() if p.full else p.initial.upper() + "." for p in self.given)
        return f"{given} {self.surname.title()}".strip()


def fold(text: str) -> str:
    """Lower case ASCII where the script allows it: accents off, letters transliterated."""
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKC", text).translate(_TRANSLIT)
    text = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in text if not unicodedata.combining(ch)).lower()


def _clean(raw: str) -> str:
    text = raw or ""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    text = _HYPHEN_SPACES.sub("-", text.translate(_DASH_TABLE))
    return _SPACES.sub(" ", _NOT_NAME.sub(" ", text)).strip(" ,")


def _is_initials(token: str, all_caps: bool) -> bool:
    """Whether a token is initials: "J." "J.W." "JW" are; "Jo" is not, nor "JO" in capitals."""
    letters = token.replace(".", "").replace("-", "")
    if not letters:
        return False
    if "." in token or len(letters) == 1:
        return len(letters) <= 4 if "." in token else True
    if not letters.isupper() or len(letters) > 3:
        return False
    if not all_caps:
        return True
    # In a name printed in capitals, "JW" or "SE" are initials, "BO" or "LI" a name.
    return not (set(letters.lower()) & VOWELS) or (
        len(letters) == 2 and letters.lower() not in SHORT_GIVEN
    )


def _given_parts(tokens: list[str], all_caps: bool) -> tuple[Part, ...]:
    parts: list[Part] = []
    for token in tokens:
        if _is_initials(token, all_caps):
            words = fold(token.replace(".", " ").replace("-", " ")).split()
            letters = words if "." in token or len(words) > 1 else list(words[0])
            parts.extend(Part(word[0]) for word in letters)
            continue
        for piece in token.split("-"):
            piece = fold(piece.strip("."))
            if piece:
                parts.append(Part(piece[0], piece if len(piece) > 1 else ""))
    return tuple(parts)


def _split_order(text: str) -> tuple[list[str], list[str]]:
    """(surname tokens, given tokens) from "Surname, Given", "Given Surname" or "Surname GW"."""
    if "," in text:
        head, _, tail = text.partition(",")
        tail_tokens = tail.replace(",", " ").split()
        # "Rahman, MD": capitals without dots first after the comma are initials.
        capitals = bool(tail_tokens) and tail_tokens[0].isupper() and "." not in tail_tokens[0]
        tail_tokens = [t for n, t in enumerate(tail_tokens) if not _suffix(t, n == 0 and capitals)]
        if tail_tokens:
            return head.split(), tail_tokens
        text = head
    # A suffix follows a name: "JR Smith" and "MD Rahman" begin with initials.
    tokens = [t for n, t in enumerate(text.split()) if not _suffix(t, n == 0)]
    if len(tokens) <= 1:
        return tokens, []
    all_caps = text.upper() == text
    last = tokens[-1]
    surname_first = (
        "." not in last
        and last.isalpha()
        and last.isupper()
        and (len(last) == 1 or (not all_caps and len(last) <= 3))
        and not _is_initials(tokens[0], all_caps)
    )
    if surname_first:
        return tokens[:-1], [last]
    start = len(tokens) - 1
    while start > 1 and _is_particle(tokens[start - 1]):
        start -= 1
    return tokens[start:], tokens[:start]


def _suffix(token: str, first: bool) -> bool:
    """Whether ``token`` is a suffix such as "Jr." (never the first word of a name)."""
    return not first and token.lower() in SUFFIXES


def _is_particle(token: str) -> bool:
    return "." not in token and len(token) > 1 and token.lower() in PARTICLES


def _surname_forms(tokens: list[str]) -> tuple[str, frozenset[str], tuple[str, ...]]:
    words = [w for t in tokens for w in t.split("-") if w]
    core_words = list(words)
    while len(core_words) > 1 and fold(core_words[0]).strip(".") in PARTICLES:
        core_words.pop(0)
    surname = fold(" ".join(tokens)).strip(". ")
    cores = set()
    for variant in (lambda w: w, _german):
        cores.add("".join(fold(variant(w)) for w in core_words).replace(".", ""))
        if len(core_words) < len(words):
            cores.add("".join(fold(variant(w)) for w in words).replace(".", ""))
    parts = tuple(fold(w).replace(".", "") for w in core_words)
    return surname, frozenset(c for c in cores if c), parts


def _german(word: str) -> str:
    return word.translate(_GERMAN_TABLE)


def formal_initial(part: Part) -> str:
    """The initial a part stands for: "Bill" is a "W." ."""
    return _FORMAL_INITIAL.get(part.full, part.initial)


def _block_key(core_last: str, given: tuple[Part, ...]) -> str:
    # Umlauts written out ("Mueller") and folded ("Muller") share a block.
    key = re.sub(r"(?<=[aou])e", "", core_last)
    return f"{key}_{formal_initial(given[0]) if given else ''}"


@lru_cache(maxsize=1 << 18)
def parse_name(raw: str) -> Name:
    """Read a byline name as printed into its surname and given-name parts."""
    text = _clean(raw)
    surname_tokens, given_tokens = _split_order(text)
    all_caps = text.upper() == text
    given = _given_parts(given_tokens, all_caps)
    surname, cores, parts = _surname_forms(surname_tokens)
    last = fold(surname_tokens[-1].split("-")[-1]).replace(".", "") if surname_tokens else ""
    common = bool(cores & COMMON_SURNAMES)
    given_common = not given or not given[0].full or given[0].full in COMMON_GIVEN
    return Name(raw, surname, cores, parts, given, _block_key(last, given), common, given_common)


def block_key(raw: str) -> str:
    return parse_name(raw).block


def surnames_compatible(a: Name, b: Name) -> bool:
    if a.cores & b.cores:
        return True
    # One double or hyphenated surname printed in part: "Rebholz-Schuhmann" / "Schuhmann".
    shorter, longer = (a, b) if len(a.parts) < len(b.parts) else (b, a)
    if len(longer.parts) > 1 and shorter.cores & set(longer.parts):
        return True
    # An umlaut written out on one side, dropped on the other: "Mueller" / "Muller".
    return _umlaut_free(a.cores) & _umlaut_free(b.cores) != set()


def _umlaut_free(cores: frozenset[str]) -> set[str]:
    return {re.sub(r"(?<=[aou])e", "", core) for core in cores}


def parts_agree(a: Part, b: Part) -> int:
    """How two given-name parts agree: 0 not at all, else INITIALS, VARIANT or FULL."""
    if a.full and b.full:
        if a.full == b.full:
            return FULL
        return VARIANT if variants(a.full, b.full) else INCOMPATIBLE
    if a.initial == b.initial or formal_initial(a) == formal_initial(b):
        return INITIALS
    return INCOMPATIBLE


def variants(a: str, b: str) -> bool:
    """Two forms of one given name: usual variants ("Frank" / "Francis") or romanisations
    that differ only in their ending ("Dmitry" / "Dmitrii" / "Dmitriy")."""
    if _NICKNAMES.get(a, set()) & _NICKNAMES.get(b, set()):
        return True
    return len(a) >= 5 and len(b) >= 5 and _romanised(a) == _romanised(b)


def _romanised(name: str) -> str:
    return re.sub(r"(iy|ii|ij|yi|y)$", "i", name)


def _joined(parts: tuple[Part, ...]) -> str:
    return "".join(p.full for p in parts) if all(p.full for p in parts) else ""


def given_compatible(a: tuple[Part, ...], b: tuple[Part, ...]) -> int:
    """Agreement level of two given-name lists (middle names may be left out)."""
    if not a or not b:
        return SURNAME_ONLY
    joined_a, joined_b = _joined(a), _joined(b)
    if joined_a and joined_a == joined_b:
        return EXACT  # "Ming-Wei" / "Mingwei"
    if joined_a and len(b) > 1 and joined_a == "".join(p.full or "?" for p in b):
        return FULL
    level = parts_agree(a[0], b[0])
    if level == INCOMPATIBLE:
        return INCOMPATIBLE
    for left, right in zip(a[1:], b[1:], strict=False):
        if parts_agree(left, right) == INCOMPATIBLE:
            return _concatenated(a, b)
    if level == FULL and len(a) == len(b) and all(p.full for p in a + b):
        return EXACT
    return level


def _concatenated(a: tuple[Part, ...], b: tuple[Part, ...]) -> int:
    """ "Mingwei" against "Ming W." : one side's first part spells two of the other's."""
    for one, two in ((a, b), (b, a)):
        if len(two) >= 2 and one[0].full and two[0].full and one[0].full.startswith(two[0].full):
            rest = one[0].full[len(two[0].full) :]
            if rest and rest[0] == two[1].initial:
                return INITIALS
    return INCOMPATIBLE


def compatible(a: Name | str, b: Name | str) -> int:
    """Level of agreement of two names, INCOMPATIBLE (0) when they cannot be one person."""
    a = parse_name(a) if isinstance(a, str) else a
    b = parse_name(b) if isinstance(b, str) else b
    if not surnames_compatible(a, b):
        return INCOMPATIBLE
    return given_compatible(a.given, b.given)


def first_form(name: Name) -> str:
    """The first given name as a short key: its full form or its initial."""
    first = name.first
    if first is None:
        return ""
    return first.full or first.initial
