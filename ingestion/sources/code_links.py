"""Finding a work's code repository link in what any source sends (pure functions).

A code link is an address on a host that keeps source code: GitHub, GitLab,
Bitbucket, Codeberg, SourceForge, Hugging Face, Software Heritage (its archive
pages and SWHIDs), and Zenodo when the deposit is software. A project page
(github.io) or a video is not a code link. Zenodo also keeps papers, slides and
data, so a Zenodo record counts only where it is said to be software: a
sentence that names code or software around it, or a location of a work whose
type is software.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Characters that end an address in running text (and LaTeX's \url{...}).
_TAIL = r"[^\s<>\"'`(){}\[\]\\|^]+"
_REPOSITORY = re.compile(
    r"(?<![\w./-])(?:https?://)?(?:www\.)?"
    r"(?:github\.com|gitlab\.com|bitbucket\.org|huggingface\.co|codeberg\.org"
    r"|archive\.softwareheritage\.org|(?:[\w-]+\.)?sourceforge\.(?:net|io))"
    r"/" + _TAIL,
    re.IGNORECASE,
)
_SWHID = re.compile(r"(?<![\w/])swh:1:(?:cnt|dir|rev|rel|snp):[0-9a-f]{40}(?:;[^\s<>\"']*)?")
_ZENODO = re.compile(
    r"(?<![\w./-])(?:https?://)?(?:(?:www\.)?zenodo\.org/(?:records?|doi)/"
    + _TAIL
    + r"|(?:(?:dx\.)?doi\.org/)?10\.5281/zenodo\.\d+)",
    re.IGNORECASE,
)
_SOFTWARE_WORDS = re.compile(
    r"\b(?:code|codes|software|implementation|implementations|source|repository|artifacts?"
    r"|package|library|toolkit|tool|program)\b",
    re.IGNORECASE,
)
_SENTENCE_BREAK = re.compile(r"[.!?;](?:\s|$)|\n")
_TRAILING = ".,;:!?"


def extract_code_url(text: str | None) -> str:
    """The first code repository link in ``text``, or ""."""
    for url in code_urls(text):
        return url
    return ""


def code_urls(text: str | None) -> list[str]:
    """Every code repository link in ``text``, in the order they appear."""
    if not text:
        return []
    found: list[tuple[int, str]] = []
    for match in _REPOSITORY.finditer(text):
        if url := _repository_url(match.group(0)):
            found.append((match.start(), url))
    for match in _SWHID.finditer(text):
        found.append((match.start(), f"https://archive.softwareheritage.org/{match.group(0)}"))
    for match in _ZENODO.finditer(text):
        end = match.start() + len(match.group(0).rstrip(_TRAILING))
        if _said_to_be_software(text, match.start(), end):
            found.append((match.start(), _zenodo_url(match.group(0))))
    return list(dict.fromkeys(url for _, url in sorted(found)))


def code_url_from_locations(urls: Iterable[str], *, is_software: bool = False) -> str:
    """The first address among a work's locations that is a code repository, or ""."""
    for url in urls:
        text = (url or "").strip()
        if _REPOSITORY.fullmatch(text) and (found := _repository_url(text)):
            return found
        if is_software and _ZENODO.fullmatch(text.rstrip("/")):
            return _zenodo_url(text)
    return ""


def _repository_url(raw: str) -> str:
    # Sentences end right after links: "available at https://github.com/a/b."
    url = raw.rstrip(_TRAILING)
    if "://" not in url:
        url = f"https://{url}"
    path = url.split("://", 1)[1].partition("/")[2]
    return url if path.strip("/") else ""  # the host alone ("github.com/.") names nothing


def _zenodo_url(raw: str) -> str:
    url = raw.rstrip(_TRAILING)
    if url.lower().startswith("10.5281/"):
        return f"https://doi.org/{url}"
    if "://" not in url:
        return f"https://{url}"
    return url


def _said_to_be_software(text: str, start: int, end: int) -> bool:
    """Whether the sentence holding ``text[start:end]`` names code or software."""
    before = _SENTENCE_BREAK.split(text[:start])[-1]
    after = _SENTENCE_BREAK.split(text[end:], maxsplit=1)[0]
    return bool(_SOFTWARE_WORDS.search(f"{before} {after}"))
