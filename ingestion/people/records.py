"""The records held here, read as the identity engine's bylines.

Each author record becomes an anchor byline (its name and last known place,
even when it holds no work yet) plus one byline per work it holds, each
carrying the work's co-authors, topics, venue, year and title words. All of a
record's bylines share a source author id (``a<pk>``): the engine keeps them
together as one person and never merges two records on its own, since only an
ORCID proves that two records are one person.

The anchor carries the record's label (the name and ORCID its source gave the
person) only when a work held here prints that name: a label whose first name
no byline of the record prints in full ("Joel Roberts" over works printing
"J.C. Roberts", "Jay B. Dean" over "Jeffrey Dean") is the source's guess at who
the bylines are, and a wrong guess would keep the record from another record of
the same person ("different ORCIDs", "names disagree"). Such an anchor takes the
fullest name its works print, and no ORCID.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db.models import Count, F, Q, Window
from django.db.models.functions import RowNumber

from catalogue.models import Author, Authorship, LinkConstraint, Work, WorkTopic
from identity import Byline
from identity.names import INCOMPATIBLE, VARIANT, compatible, parse_name

WORKS_PER_RECORD = 40  # the most recent works of a record that speak for it
RECORDS_PER_BLOCK = 400  # past this, only records whose names agree with a newcomer's


def record_key(author_id: int) -> str:
    return f"a{author_id}"


def anchor_id(author_id: int) -> str:
    return f"rec:{author_id}"


def work_key(work_id: int) -> str:
    return f"w{work_id}"


def institution_keys(ids: Iterable[int]) -> tuple[str, ...]:
    return tuple(f"i{pk}" for pk in ids if pk)


def block_records(blocks: set[str], names: Iterable[str] = ()) -> list[Author]:
    """Visible records of the given name blocks; in a crowded block, those whose name
    agrees with one of ``names``."""
    if not blocks:
        return []
    rows = list(
        Author.objects.visible()
        .filter(name_block__in=blocks)
        .only(
            "pk", "display_name", "orcid", "openalex_id", "last_known_institution_id", "name_block"
        )
    )
    names = list(names)
    if len(rows) > RECORDS_PER_BLOCK and names:
        rows = [
            a for a in rows if any(compatible(a.display_name, n) != INCOMPATIBLE for n in names)
        ]
    return rows


def provisional(authors: list[Author]) -> set[int]:
    """The records made here from bare names that nobody has decided on yet: no source
    id, no ORCID, no owner, no staff or owner link. The engine may fold them into a
    record its evidence puts them with; other records it only proposes to merge."""
    ids = {a.pk for a in authors if not a.openalex_id and not a.orcid}
    if not ids:
        return set()
    decided = set(
        LinkConstraint.objects.filter(author_id__in=ids).values_list("author_id", flat=True)
    )
    decided |= set(
        LinkConstraint.objects.filter(other_author_id__in=ids).values_list(
            "other_author_id", flat=True
        )
    )
    decided |= set(
        Author.objects.filter(pk__in=ids, profile__isnull=False).values_list("pk", flat=True)
    )
    return ids - decided


def kept_apart(ids: set[int]) -> list[tuple[int, int]]:
    """Pairs of the records ``ids`` that staff or an owner said are different people."""
    if len(ids) < 2:
        return []
    rows = LinkConstraint.objects.filter(
        kind=LinkConstraint.Kind.CANNOT_LINK, author_id__in=ids, other_author_id__in=ids
    )
    return list(rows.values_list("author_id", "other_author_id"))


def loose_blocks(blocks: set[str]) -> set[str]:
    """Those of ``blocks`` that hold a record without a source id or ORCID."""
    if not blocks:
        return set()
    rows = (
        Author.objects.visible()
        .filter(name_block__in=blocks)
        .filter(Q(openalex_id__isnull=True) | Q(openalex_id=""))
        .filter(Q(orcid__isnull=True) | Q(orcid=""))
    )
    return set(rows.values_list("name_block", flat=True).distinct())


def crowded_blocks(blocks: set[str]) -> set[str]:
    """Those of ``blocks`` that hold two visible records or more (one indexed query)."""
    if not blocks:
        return set()
    rows = (
        Author.objects.visible()
        .filter(name_block__in=blocks)
        .values("name_block")
        .annotate(held=Count("pk"))
        .filter(held__gt=1)
    )
    return set(rows.values_list("name_block", flat=True))


def record_bylines(authors: list[Author], per_record: int = WORKS_PER_RECORD) -> list[Byline]:
    """Anchor and work bylines of ``authors`` (see the module docstring)."""
    if not authors:
        return []
    ids = [a.pk for a in authors]
    ranked = Authorship.objects.filter(author_id__in=ids).annotate(
        rank=Window(RowNumber(), partition_by=[F("author_id")], order_by=F("work_id").desc())
    )
    own = list(
        ranked.filter(rank__lte=per_record).values_list(
            "pk", "author_id", "work_id", "raw_name", "raw_affiliation", "author__display_name"
        )
    )
    context = work_context({work_id for _, _, work_id, *_ in own})
    places = _places([pk for pk, *_ in own])
    printed: dict[int, list[str]] = defaultdict(list)
    works = []
    for pk, author_id, work_id, raw_name, affiliation, display_name in own:
        printed[author_id].append(raw_name or display_name)
        works.append(
            context.byline(
                id=f"as:{pk}",
                name=raw_name or display_name,
                work_id=work_id,
                author_id=author_id,
                affiliations=(affiliation,) if affiliation else (),
                institutions=places.get(pk, ()),
            )
        )
    return [_anchor(a, printed.get(a.pk, [])) for a in authors] + works


def _anchor(author: Author, printed: list[str]) -> Byline:
    """The byline standing for the record itself: its label, if its works bear it out."""
    supported = label_supported(author.display_name, printed)
    return Byline(
        id=anchor_id(author.pk),
        name=author.display_name if supported else max(printed, key=fullness),
        work_id=anchor_id(author.pk),
        institutions=institution_keys([author.last_known_institution_id]),
        orcid=(author.orcid or "") if supported else "",
        source_author_id=record_key(author.pk),
    )


def label_supported(label: str, printed: list[str]) -> bool:
    """Whether the names printed on a record's works bear out the name it is labelled
    with: one of them gives its first name in full (or a variant of it), or, for a
    label with initials only, agrees with it. A record without works contradicts
    nothing."""
    if not printed:
        return True
    level = max(compatible(label, name) for name in set(printed))
    first = parse_name(label).first
    if first is None or not first.full:
        return level != INCOMPATIBLE
    return level >= VARIANT


def fullness(name: str) -> tuple[int, int]:
    """Full given names before initials, then the longer form."""
    parsed = parse_name(name)
    return (sum(1 for part in parsed.given if part.full), len(name))


def _places(authorship_ids: list[int]) -> dict[int, tuple[str, ...]]:
    if not authorship_ids:
        return {}
    through = Authorship.institutions.through
    found: dict[int, list[int]] = defaultdict(list)
    rows = through.objects.filter(authorship_id__in=authorship_ids)
    for authorship_id, institution_id in rows.values_list("authorship_id", "institution_id"):
        found[authorship_id].append(institution_id)
    return {pk: institution_keys(values) for pk, values in found.items()}


class WorkContext:
    """What the works of some stored bylines say around each author position."""

    def __init__(self):
        self.names: dict[int, list[tuple[int, str]]] = defaultdict(list)  # work -> (author, name)
        self.topics: dict[int, tuple[str, ...]] = {}
        self.facts: dict[int, tuple[str, int | None, str]] = {}  # work -> (venue, year, title)

    def byline(self, *, id, name, work_id, author_id, affiliations=(), institutions=()) -> Byline:
        others = [(a, n) for a, n in self.names.get(work_id, ()) if a != author_id]
        venue, year, title = self.facts.get(work_id, ("", None, ""))
        return Byline(
            id=id,
            name=name,
            work_id=work_key(work_id),
            coauthors=tuple(n for _, n in others),
            coauthor_ids=tuple(record_key(a) for a, _ in others),
            affiliations=affiliations,
            institutions=institutions,
            topics=self.topics.get(work_id, ()),
            venue=venue,
            year=year,
            words=(title,),
            source_author_id=record_key(author_id),
        )


def work_context(work_ids: set[int]) -> WorkContext:
    context = WorkContext()
    if not work_ids:
        return context
    rows = Authorship.objects.filter(work_id__in=work_ids).order_by("work_id", "position")
    for work_id, author_id, raw_name, display_name in rows.values_list(
        "work_id", "author_id", "raw_name", "author__display_name"
    ):
        context.names[work_id].append((author_id, raw_name or display_name))
    topics: dict[int, list[str]] = defaultdict(list)
    for work_id, key in WorkTopic.objects.filter(work_id__in=work_ids).values_list(
        "work_id", "topic__key"
    ):
        topics[work_id].append(key)
    context.topics = {k: tuple(v) for k, v in topics.items()}
    for work_id, venue, year, title in Work.objects.filter(pk__in=work_ids).values_list(
        "pk", "venue__name", "publication_year", "title"
    ):
        context.facts[work_id] = (venue or "", year, title or "")
    return context
