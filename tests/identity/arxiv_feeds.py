"""Bylines from recorded arXiv Atom feeds (the same paper in two feeds is read once)."""

from lxml import etree

from identity import Byline

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"


def feed_bylines(paths) -> list[Byline]:
    entries = {}
    for path in paths:
        for entry in etree.parse(str(path)).getroot().iter(f"{ATOM}entry"):
            identifier = entry.findtext(f"{ATOM}id", "").rsplit("/", 1)[-1].split("v")[0]
            entries.setdefault(identifier, entry)
    bylines = []
    for identifier, entry in sorted(entries.items()):
        authors = entry.findall(f"{ATOM}author")
        names = [a.findtext(f"{ATOM}name", "").strip() for a in authors]
        topics = tuple(c.get("term") for c in entry.findall(f"{ATOM}category"))
        text = (entry.findtext(f"{ATOM}title", ""), entry.findtext(f"{ATOM}summary", ""))
        year = int(entry.findtext(f"{ATOM}published", "0")[:4] or 0) or None
        for position, (author, name) in enumerate(zip(authors, names, strict=True)):
            affiliations = tuple(a.text for a in author.findall(f"{ARXIV}affiliation") if a.text)
            bylines.append(
                Byline(
                    id=f"{identifier}:{position}",
                    name=name,
                    work_id=identifier,
                    coauthors=tuple(n for i, n in enumerate(names) if i != position),
                    affiliations=affiliations,
                    topics=topics,
                    venue="arXiv",
                    year=year,
                    words=text,
                )
            )
    return bylines
