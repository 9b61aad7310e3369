"""Upserting the shared entities a batch refers to: institutions, venues, topics, funders.

Each function takes every reference in a batch at once, creates the missing
rows with ``ignore_conflicts`` (two workers may race to create the same topic)
and reads the ids back, so a batch costs a fixed number of queries. Missing rows
are created in key order, so two writers that create some of the same rows wait
for each other in one order instead of deadlocking.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from catalogue.models import Funder, Institution, Topic, Venue
from ingestion.ingest.rows import any_of, present_in
from ingestion.records import GrantRef, InstitutionRef, TopicRef, VenueRef


def _domain(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower()
    return host.removeprefix("www.")


def institution_key(ref: InstitutionRef) -> str:
    return ref.openalex_id or (f"ror:{ref.ror}" if ref.ror else f"name:{ref.name.lower()}")


def upsert_institutions(refs: Iterable[InstitutionRef]) -> dict[str, Institution]:
    """Return institutions by ``institution_key``; only ones with an OpenAlex id or ROR are kept."""
    wanted = {institution_key(r): r for r in refs if r.openalex_id or r.ror}
    if not wanted:
        return {}
    by_openalex = {r.openalex_id for r in wanted.values() if r.openalex_id}
    by_ror = {r.ror for r in wanted.values() if r.ror and not r.openalex_id}
    found = _read_institutions(by_openalex, by_ror)
    missing = [r for k, r in sorted(wanted.items()) if k not in found]
    if missing:
        Institution.objects.bulk_create(
            [
                Institution(
                    name=r.name[:500] or "Unnamed institution",
                    openalex_id=r.openalex_id,
                    ror=r.ror,
                    country_code=(r.country_code or "")[:2],
                    type=(r.type or "")[:50],
                    homepage_url=r.homepage_url[:500],
                    homepage_domain=_domain(r.homepage_url),
                )
                for r in missing
            ],
            ignore_conflicts=True,
        )
        found = _read_institutions(by_openalex, by_ror)
    _fill_institution_homepages(found, wanted)
    return found


# What a batch needs of a shared entity it refers to: its id, its keys and what it may fill.
_INSTITUTION_COLUMNS = ("id", "openalex_id", "ror", "homepage_url")
_TOPIC_COLUMNS = ("id", "key", "parent")


def _read_institutions(by_openalex: set[str], by_ror: set[str]) -> dict[str, Institution]:
    found: dict[str, Institution] = {}
    rows = Institution.objects.only(*_INSTITUTION_COLUMNS)
    if by_openalex:
        for inst in rows.filter(present_in("openalex_id", by_openalex)):
            found[inst.openalex_id] = inst
    if by_ror:
        for inst in rows.filter(present_in("ror", by_ror)):
            found[f"ror:{inst.ror}"] = inst
    return found


def _fill_institution_homepages(found: dict[str, Institution], wanted: dict) -> None:
    """An institution entity brings its homepage, and a ROR an authorship may lack: fill them."""
    taken = _rors_taken({r.ror for r in wanted.values() if r.ror})
    changed = []
    for key, inst in found.items():
        ref = wanted.get(key)
        if ref is None:
            continue
        before = (inst.homepage_url, inst.ror)
        if ref.homepage_url and not inst.homepage_url:
            inst.homepage_url = ref.homepage_url[:500]
        if ref.ror and not inst.ror and ref.ror not in taken:
            inst.ror = ref.ror
            taken.add(ref.ror)
        if (inst.homepage_url, inst.ror) != before:
            inst.homepage_domain = _domain(inst.homepage_url)
            changed.append(inst)
    if changed:
        Institution.objects.bulk_update(changed, ["homepage_url", "homepage_domain", "ror"])


def _rors_taken(rors: set[str]) -> set[str]:
    if not rors:
        return set()
    return set(Institution.objects.filter(present_in("ror", rors)).values_list("ror", flat=True))


def venue_key(ref: VenueRef) -> str:
    return ref.openalex_id or f"name:{ref.name.lower()}"


def upsert_venues(refs: Iterable[VenueRef]) -> dict[str, Venue]:
    wanted = {venue_key(r): r for r in refs if r.name}
    if not wanted:
        return {}
    ids = {r.openalex_id for r in wanted.values() if r.openalex_id}
    names = {r.name for r in wanted.values() if not r.openalex_id}

    def read() -> dict[str, Venue]:
        found = (
            {v.openalex_id: v for v in Venue.objects.filter(present_in("openalex_id", ids))}
            if ids
            else {}
        )
        if names:
            for v in Venue.objects.filter(openalex_id__isnull=True, name__in=names):
                found.setdefault(f"name:{v.name.lower()}", v)
        return found

    found = read()
    missing = [r for k, r in sorted(wanted.items()) if k not in found]
    if missing:
        Venue.objects.bulk_create(
            [
                Venue(
                    name=r.name[:500],
                    openalex_id=r.openalex_id,
                    issn_l=(r.issn_l or "")[:16],
                    type=(r.type or "")[:50],
                    publisher=(r.publisher or "")[:500],
                    homepage_url=(r.homepage_url or "")[:500],
                )
                for r in missing
            ],
            ignore_conflicts=True,
        )
        found = read()
    return found


def _with_ancestors(refs: Iterable[TopicRef]) -> dict[str, TopicRef]:
    chain: dict[str, TopicRef] = {}
    for ref in refs:
        node: TopicRef | None = ref
        while node is not None and node.key not in chain:
            chain[node.key] = node
            node = node.parent
    return chain


def upsert_topics(refs: Iterable[TopicRef]) -> dict[str, Topic]:
    """Return topics by key, creating missing ones with their parents."""
    wanted = _with_ancestors(refs)
    if not wanted:
        return {}
    rows = Topic.objects.only(*_TOPIC_COLUMNS).filter(any_of("key", wanted))
    found = {t.key: t for t in rows}
    missing = [r for k, r in sorted(wanted.items()) if k not in found]
    if missing:
        Topic.objects.bulk_create(
            [Topic(key=r.key[:100], name=r.name[:300], kind=r.kind) for r in missing],
            ignore_conflicts=True,
        )
        found = {t.key: t for t in rows.all()}
        _link_parents(found, missing)
    return found


def _link_parents(found: dict[str, Topic], created: list[TopicRef]) -> None:
    changed = []
    for ref in created:
        topic = found.get(ref.key)
        parent = found.get(ref.parent.key) if ref.parent else None
        if topic and parent and topic.parent_id != parent.pk:
            topic.parent = parent
            changed.append(topic)
    if changed:
        Topic.objects.bulk_update(changed, ["parent"])


def funder_key(ref: GrantRef) -> str:
    return ref.funder_openalex_id or f"name:{ref.funder_name.lower()}"


def upsert_funders(refs: Iterable[GrantRef]) -> dict[str, Funder]:
    wanted = {funder_key(r): r for r in refs if r.funder_name or r.funder_openalex_id}
    if not wanted:
        return {}
    ids = {r.funder_openalex_id for r in wanted.values() if r.funder_openalex_id}
    names = {r.funder_name for r in wanted.values() if not r.funder_openalex_id}

    def read() -> dict[str, Funder]:
        found = (
            {f.openalex_id: f for f in Funder.objects.filter(present_in("openalex_id", ids))}
            if ids
            else {}
        )
        if names:
            for f in Funder.objects.filter(openalex_id__isnull=True, name__in=names):
                found[f"name:{f.name.lower()}"] = f
        return found

    found = read()
    missing = [r for k, r in sorted(wanted.items()) if k not in found]
    if missing:
        Funder.objects.bulk_create(
            [
                Funder(
                    name=(r.funder_name or r.funder_openalex_id or "")[:500],
                    openalex_id=r.funder_openalex_id,
                    ror=r.funder_ror,
                )
                for r in missing
            ],
            ignore_conflicts=True,
        )
        found = read()
    return found
