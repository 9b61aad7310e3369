"""Writing a batch's authorships: who wrote each work, with their institutions."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Q

from catalogue.models import (
    Author,
    AuthorInstitution,
    Authorship,
    LinkConstraint,
    Source,
    UnlinkedAuthorship,
)
from ingestion.ingest import entities
from ingestion.ingest.batch import IncomingWork
from ingestion.ingest.bylines import Constraints, Item, Resolved
from ingestion.ingest.rows import allocate_ids, any_of, insert_rows, on_postgresql
from ingestion.ingest.versions import IMPORT_SOURCES, align

AuthorshipInstitution = Authorship.institutions.through


NEW_AUTHORSHIP_FIELDS = [
    "work_id",
    "author_id",
    "source",
    "position",
    "raw_name",
    "raw_affiliation",
    "is_corresponding",
    "confidence",
    "evidence",
]


@dataclass(slots=True)
class NewAuthorship:
    """An authorship this batch creates: a plain row until it is inserted."""

    work_id: int
    author_id: int
    source: str
    position: int = 0
    raw_name: str = ""
    raw_affiliation: str = ""
    is_corresponding: bool = False
    confidence: float = 1.0
    evidence: str = ""
    pk: int | None = None

    def values(self) -> dict:
        return {name: getattr(self, name) for name in NEW_AUTHORSHIP_FIELDS}

    def row(self) -> tuple:
        return (self.pk, *(getattr(self, name) for name in NEW_AUTHORSHIP_FIELDS))


class AuthorshipWriter:
    """Plans the authorship changes of a batch, then writes them in a few statements."""

    def __init__(self, existing, constraints: Constraints, institutions):
        self.existing = existing
        self.constraints = constraints
        self.institutions = institutions
        self.create: list[Authorship] = []
        self.update: list[Authorship] = []
        self.delete: list[int] = []
        self.links: list[tuple[Authorship, list[int]]] = []
        self.author_ids: set[int] = set()
        self.last_known: dict[int, int] = {}
        # (names and authors of a byline that goes, those of the byline that stays)
        self.replaced: list[tuple[list[tuple[str, int]], list[tuple[str, int]]]] = []

    def plan(self, item: Item, resolved: dict[tuple[int, int], Resolved]) -> None:
        current = {a.author_id: a for a in self.existing[item.work_id]}
        if not item.leads:
            self._plan_follower(item, current)
            return
        source = item.record.source
        keep, byline = set(), []
        for ref in item.record.authors:
            match = resolved.get((item.work_id, ref.position))
            if match is None or match.author.pk in keep:
                continue
            author_id = match.author.pk
            keep.add(author_id)
            byline.append((ref.name or ref.raw_name, author_id))
            authorship = current.get(author_id)
            if authorship is None:
                authorship = NewAuthorship(item.work_id, author_id, source)
                self.create.append(authorship)
            elif authorship.source in IMPORT_SOURCES:
                authorship.source = source  # the leading record's byline: its entry now
                self.update.append(authorship)
            else:
                if match.confidence > authorship.confidence:
                    authorship.confidence, authorship.evidence = match.confidence, match.evidence
                self.update.append(authorship)
                self._remember(item, ref, author_id)
                continue
            authorship.position = ref.position
            authorship.raw_name = (ref.raw_name or ref.name)[:500]
            authorship.raw_affiliation = ref.raw_affiliation
            authorship.is_corresponding = ref.is_corresponding
            authorship.confidence = match.confidence
            authorship.evidence = match.evidence[:300]
            self._remember(item, ref, author_id, authorship)
        protected = self.constraints.must.get(item.work_id, set())
        replaced = []
        for author_id, authorship in current.items():
            if author_id in keep or author_id in protected:
                continue
            if authorship.source == source or self.constraints.forbids(author_id, item.work_id):
                self.delete.append(authorship.pk)
            elif authorship.source in IMPORT_SOURCES:
                replaced.append((_entry_name(authorship), author_id, authorship.pk))
        if item.work_id in self.constraints.joined:
            # Staff merged another version into this work: only a person it holds twice goes.
            names = align([name for name, _ in byline], [name for name, _, _ in replaced])
            replaced = [replaced[j] for _, j in names]
        self.delete += [pk for _, _, pk in replaced]
        self.replaced.append(([(name, author) for name, author, _ in replaced], byline))
        self.author_ids |= keep | {a for a in current if a not in keep}

    def _plan_follower(self, item: Item, current: dict[int, Authorship]) -> None:
        """A record that does not lead its work writes no authorship; an earlier byline of
        its own source (written before the work's leading record came) goes."""
        source = item.record.source
        protected = self.constraints.must.get(item.work_id, set())
        gone, kept = [], []
        for author_id, authorship in current.items():
            own = authorship.source == source and source != item.lead_source
            entry = (_entry_name(authorship), author_id, authorship.pk)
            (gone if own and author_id not in protected else kept).append(entry)
        if item.work_id in self.constraints.joined:
            # Staff merged another version into this work: only a person it holds twice goes.
            pairs = align([name for name, _, _ in kept], [name for name, _, _ in gone])
            gone = [gone[j] for _, j in pairs]
        self.delete += [pk for _, _, pk in gone]
        self.replaced.append(([(n, a) for n, a, _ in gone], [(n, a) for n, a, _ in kept]))
        self.author_ids |= set(current)

    def _remember(self, item, ref, author_id, authorship=None) -> None:
        ids = [
            self.institutions[key].pk
            for key in map(entities.institution_key, ref.institutions)
            if key in self.institutions
        ]
        if authorship is not None:
            self.links.append((authorship, ids))
        if ids:
            self.last_known.setdefault(author_id, ids[0])

    def commit(self) -> set[int]:
        if self.delete:
            Authorship.objects.filter(pk__in=self.delete).delete()
        self._insert_new()
        fields = ["source", "position", "raw_name", "raw_affiliation", "is_corresponding"]
        Authorship.objects.bulk_update(self.update, [*fields, "confidence", "evidence"])
        self._write_institution_links()
        self._fill_affiliations()
        self.author_ids |= merge_orphans(self._same_people())
        return self.author_ids

    def _same_people(self) -> dict[int, int]:
        """Authors of a byline that went -> the author their name stands beside in the one kept."""
        pairs = {}
        for gone, kept in self.replaced:
            if not gone or not kept:
                continue
            names = align([name for name, _ in kept], [name for name, _ in gone])
            for i, j in names:
                if gone[j][1] != kept[i][1]:
                    pairs[gone[j][1]] = kept[i][1]
        return pairs

    def _insert_new(self) -> None:
        """Insert the new authorships and learn their ids (needed for institution links)."""
        if not self.create:
            return
        if on_postgresql():
            ids = allocate_ids(Authorship, len(self.create))
            for authorship, pk in zip(self.create, ids, strict=True):
                authorship.pk = pk
            insert_rows(Authorship, ["id", *NEW_AUTHORSHIP_FIELDS], [a.row() for a in self.create])
            return
        rows = [Authorship(**a.values()) for a in self.create]
        Authorship.objects.bulk_create(rows)
        for authorship, row in zip(self.create, rows, strict=True):
            authorship.pk = row.pk

    def _write_institution_links(self) -> None:
        created = {id(a) for a in self.create}
        existing = [a.pk for a, _ in self.links if id(a) not in created]
        if existing:
            AuthorshipInstitution.objects.filter(authorship_id__in=existing).delete()
        rows = {(a.pk, inst) for a, institutions in self.links for inst in institutions}
        insert_rows(AuthorshipInstitution, ["authorship", "institution"], sorted(rows))

    def _fill_affiliations(self) -> None:
        if not self.last_known:
            return
        insert_rows(
            AuthorInstitution,
            ["author", "institution", "years", "source"],
            [(a, i, [], Source.OPENALEX) for a, i in sorted(self.last_known.items())],
            ignore_conflicts=True,
        )
        blank = Author.objects.filter(
            any_of("pk", self.last_known), last_known_institution__isnull=True
        )
        changed = []
        for author in blank.only("id"):
            author.last_known_institution_id = self.last_known[author.pk]
            changed.append(author)
        if changed:
            Author.objects.bulk_update(changed, ["last_known_institution"])


def _entry_name(authorship: Authorship) -> str:
    return authorship.raw_name or authorship.author.display_name


def merge_orphans(pairs: dict[int, int]) -> set[int]:
    """Merge each author of ``pairs`` that its work's other version left with nothing.

    An author made from a bare name (no OpenAlex id, no ORCID) for the preprint's
    byline, whose name the version of record's byline gives to an identified
    author, and who holds no other work, no byline position and no staff or owner
    decision, is that author: merged into them, as if the version of record had
    come first. Returns the ids of the authors merged.
    """
    if not pairs:
        return set()
    ids = set(pairs)
    rows = (
        Author.objects.filter(any_of("pk", ids), merged_into__isnull=True)
        .filter(Q(openalex_id__isnull=True) | Q(openalex_id=""))
        .filter(Q(orcid__isnull=True) | Q(orcid=""))
        .exclude(pk__in=Authorship.objects.filter(author_id__in=ids).values("author_id"))
        .exclude(pk__in=LinkConstraint.objects.filter(author_id__in=ids).values("author_id"))
        .exclude(
            pk__in=LinkConstraint.objects.filter(other_author_id__in=ids).values("other_author_id")
        )
    )
    merged = []
    for author in rows.only("id"):
        if pairs[author.pk] not in ids:  # never into an author merged away in the same step
            author.merged_into_id = pairs[author.pk]
            merged.append(author)
    Author.objects.bulk_update(merged, ["merged_into"])
    return {a.pk for a in merged} | {a.merged_into_id for a in merged}


def load_constraints(work_ids: set[int]) -> Constraints:
    if not work_ids:
        return Constraints(set(), defaultdict(set))
    rows = (
        LinkConstraint.objects.filter(any_of("work_id", work_ids))
        .filter(Q(author__isnull=False) | Q(other_work__isnull=False))
        .values_list("kind", "author_id", "work_id")
    )
    cannot, must, joined = set(), defaultdict(set), set()
    for kind, author_id, work_id in rows:
        if author_id is None:
            if kind == LinkConstraint.Kind.MUST_LINK:
                joined.add(work_id)
        elif kind == LinkConstraint.Kind.CANNOT_LINK:
            cannot.add((author_id, work_id))
        else:
            must[work_id].add(author_id)
    return Constraints(cannot, must, joined)


def write_unlinked(pending: list[IncomingWork], unlinked: dict) -> None:
    """Replace each record's unlinked byline positions with what this batch left unlinked.

    A leading record's byline replaces every source's; another record's positions
    of its own source go, unless its source is the leading record's.
    """
    known = defaultdict(set)
    for item in pending:
        if item.is_new:
            continue
        if item.leads:
            for source in IMPORT_SOURCES:
                known[source].add(item.work.pk)
        elif item.record.source != item.lead_source:
            known[item.record.source].add(item.work.pk)
    for source, ids in known.items():
        UnlinkedAuthorship.objects.filter(any_of("work_id", ids), source=source).delete()
    sources = {item.work.pk: item.record.source for item in pending}
    rows = [
        (work_id, position, (ref.raw_name or ref.name or "Unknown author")[:500], sources[work_id])
        for (work_id, position), ref in sorted(unlinked.items())
    ]
    insert_rows(UnlinkedAuthorship, ["work", "position", "raw_name", "source"], rows)
