"""Bylines of a work, as a source prints them, for the identity tests."""

from identity import Byline


def work_bylines(number, names, topics, venue, year, affiliation="", title="") -> list[Byline]:
    """One byline per name of work ``W<number>``, each naming the others as co-authors."""
    return [
        Byline(
            id=f"W{number}:{position}",
            name=name,
            work_id=f"W{number}",
            coauthors=tuple(n for n in names if n != name),
            affiliations=(affiliation,) if affiliation else (),
            topics=topics,
            venue=venue,
            year=year,
            words=(title,),
        )
        for position, name in enumerate(names)
    ]
