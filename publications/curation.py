"""Staff curation: import runs and problems, merge candidates, author merges and splits.

Every service is one transaction that makes the change and writes an AuditEvent
saying who did what. The event's data holds everything needed to put the rows
back, so ``audit_undo`` can reverse a merge, a split or a candidate decision
exactly. Decisions that imports must obey are stored as LinkConstraints.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone

from publications.identifiers import normalize_name
from publications.importing import dispatch, ingesting, runs
from publications.ingest.merge import FIELDS as WORK_RECORD_FIELDS
from publications.models import (
    AuditEvent,
    Author,
    AuthorInstitution,
    Authorship,
    Grant,
    ImportProblem,
    ImportRun,
    LinkConstraint,
    MergeCandidate,
    Source,
    SourceRecord,
    Work,
    WorkTopic,
)
from publications.records import MappingError

Actor = AbstractBaseUser | None

UNDO = "audit_event_undo"
MUST, CANNOT = LinkConstraint.Kind.MUST_LINK, LinkConstraint.Kind.CANNOT_LINK
# Blank fields of a kept work are filled from the work merged into it.
WORK_FILL_FIELDS = [*WORK_RECORD_FIELDS, "venue_id", "normalized_title", "first_author_surname"]
UNIQUE_WORK_IDS = {"doi", "arxiv_id", "openalex_id"}


def _blank(value) -> bool:
    return value is None or value == "" or value == [] or value == {}


# The audit trail -------------------------------------------------------------


def audit_record(*, actor: Actor, action: str, target: models.Model, data: dict) -> AuditEvent:
    """Write one entry of the audit trail: who did ``action`` to ``target``, and the details."""
    return AuditEvent.objects.create(
        actor=actor,
        action=action,
        target_type=target._meta.label_lower,
        target_id=str(target.pk),
        target_repr=str(target)[:300],
        data=data,
    )


def audit_undo_event(event: AuditEvent) -> AuditEvent | None:
    """The event that undid ``event``, if any."""
    return AuditEvent.objects.filter(
        action=UNDO, target_type=AuditEvent._meta.label_lower, target_id=str(event.pk)
    ).first()


def audit_is_undoable(event: AuditEvent) -> bool:
    return event.action in _UNDOERS


def audit_undo(*, event: AuditEvent, actor: Actor) -> AuditEvent:
    """Reverse a merge, split or candidate decision from its event and record the undo."""
    with transaction.atomic():
        event = AuditEvent.objects.select_for_update().get(pk=event.pk)
        if not audit_is_undoable(event):
            raise ValueError(f"A '{event.action}' event cannot be undone.")
        if audit_undo_event(event) is not None:
            raise ValueError(f"Event #{event.pk} ({event.action}) has already been undone.")
        details = _UNDOERS[event.action](event.data)
        return audit_record(
            actor=actor,
            action=UNDO,
            target=event,
            data={"undoes": event.pk, "action": event.action, **details},
        )


# Link constraints, recorded so an undo can put earlier decisions back ---------


def _pair_query(*, author_id=None, work_id=None, other_author_id=None, other_work_id=None) -> Q:
    if other_author_id:
        return Q(author_id=author_id, other_author_id=other_author_id) | Q(
            author_id=other_author_id, other_author_id=author_id
        )
    if other_work_id:
        return Q(work_id=work_id, other_work_id=other_work_id) | Q(
            work_id=other_work_id, other_work_id=work_id
        )
    return Q(author_id=author_id, work_id=work_id, other_author__isnull=True)


def _constraint_dump(row: LinkConstraint) -> dict:
    return {
        "id": row.pk,
        "kind": row.kind,
        "author_id": row.author_id,
        "work_id": row.work_id,
        "other_author_id": row.other_author_id,
        "other_work_id": row.other_work_id,
        "source": row.source,
        "reason": row.reason,
        "created_by_id": row.created_by_id,
    }


def _constraint_set(changes: dict, *, kind: str, actor: Actor, reason: str, **pair) -> None:
    """Store a staff decision about a pair, replacing an earlier decision about the same pair."""
    earlier = LinkConstraint.objects.filter(_pair_query(**pair))
    changes.setdefault("replaced", []).extend(_constraint_dump(row) for row in earlier)
    earlier.delete()
    row = LinkConstraint.objects.create(
        kind=kind, source=Source.STAFF, reason=reason, created_by=actor, **pair
    )
    changes.setdefault("created", []).append(row.pk)


def _constraints_restore(changes: dict) -> None:
    LinkConstraint.objects.filter(pk__in=changes.get("created", [])).delete()
    LinkConstraint.objects.bulk_create(
        [LinkConstraint(**row) for row in changes.get("replaced", [])]
    )


# Merge candidates ------------------------------------------------------------


def _candidate_decide(candidate: MergeCandidate, status: str, actor: Actor) -> dict:
    before = {
        "id": candidate.pk,
        "status": candidate.status,
        "decided_by_id": candidate.decided_by_id,
        "decided_at": candidate.decided_at.isoformat() if candidate.decided_at else None,
    }
    candidate.status = status
    candidate.decided_by = actor
    candidate.decided_at = timezone.now()
    candidate.save(update_fields=["status", "decided_by", "decided_at"])
    return before


def _candidate_restore(before: dict | None) -> None:
    if not before:
        return
    decided_at = before["decided_at"] and datetime.fromisoformat(before["decided_at"])
    MergeCandidate.objects.filter(pk=before["id"]).update(
        status=before["status"], decided_by_id=before["decided_by_id"], decided_at=decided_at
    )


def _open_candidate(candidate: MergeCandidate) -> MergeCandidate:
    candidate = MergeCandidate.objects.select_for_update().get(pk=candidate.pk)
    if candidate.status != MergeCandidate.Status.OPEN:
        raise ValueError(f"This candidate was already decided: {candidate.get_status_display()}.")
    return candidate


def merge_candidate_merge(*, candidate: MergeCandidate, actor: Actor) -> AuditEvent:
    """Staff say the pair is one record: merge b into a, and remember it.

    A side merged away since the candidate was raised stands for the record it
    was merged into.
    """
    with transaction.atomic():
        candidate = _open_candidate(candidate)
        author = candidate.kind == MergeCandidate.Kind.AUTHOR
        left, right = (
            (candidate.author_a, candidate.author_b)
            if author
            else (candidate.work_a, candidate.work_b)
        )
        left, right = _surviving(left), _surviving(right)
        if left.pk == right.pk:
            before = _candidate_decide(candidate, MergeCandidate.Status.SUPERSEDED, actor)
            return audit_record(
                actor=actor,
                action="merge_candidate_supersede",
                target=candidate,
                data={"candidate": before, "record": left.pk},
            )
        merge = author_merge if author else work_merge
        return merge(source=right, target=left, actor=actor, candidate=candidate)


def _surviving(record):
    """The record that ``record`` was merged into, following the chain, or itself."""
    seen = {record.pk}
    while record.merged_into_id and record.merged_into_id not in seen:
        record = type(record).objects.get(pk=record.merged_into_id)
        seen.add(record.pk)
    return record


def _candidates_follow_merge(*, kind: str, source_id: int, target_id: int, actor: Actor) -> list:
    """Point the open candidates naming the merged-away record at the one that stays.

    A candidate that would then pair the record with itself, repeat a pair already
    raised, or pair two records staff kept apart is closed as superseded instead,
    so no pair is raised twice. Returns what ``_candidates_restore`` puts back.
    """
    a, b = ("author_a_id", "author_b_id") if kind == "author" else ("work_a_id", "work_b_id")
    rows = MergeCandidate.objects.select_for_update().filter(
        Q(**{a: source_id}) | Q(**{b: source_id}), kind=kind, status=MergeCandidate.Status.OPEN
    )
    before = []
    for candidate in rows.order_by("pk"):
        sides = [getattr(candidate, a), getattr(candidate, b)]
        left, right = (target_id if side == source_id else side for side in sides)
        before.append({"id": candidate.pk, a: getattr(candidate, a), b: getattr(candidate, b)})
        if _pair_taken(kind, left, right, exclude=candidate.pk):
            before[-1]["decision"] = _candidate_decide(
                candidate, MergeCandidate.Status.SUPERSEDED, actor
            )
            continue
        setattr(candidate, a, left)
        setattr(candidate, b, right)
        candidate.save(update_fields=[a.removesuffix("_id"), b.removesuffix("_id")])
    return before


def _pair_taken(kind: str, left: int, right: int, *, exclude: int) -> bool:
    if left == right:
        return True
    a, b = ("author_a_id", "author_b_id") if kind == "author" else ("work_a_id", "work_b_id")
    pair = Q(**{a: left, b: right}) | Q(**{a: right, b: left})
    if MergeCandidate.objects.filter(pair, kind=kind).exclude(pk=exclude).exists():
        return True
    ids = (
        {"author_id": left, "other_author_id": right}
        if kind == "author"
        else {"work_id": left, "other_work_id": right}
    )
    return LinkConstraint.objects.filter(_pair_query(**ids), kind=CANNOT).exists()


def _candidates_restore(rows: list) -> None:
    for row in reversed(rows):
        row = dict(row)
        decision = row.pop("decision", None)
        pk = row.pop("id")
        MergeCandidate.objects.filter(pk=pk).update(**row)
        _candidate_restore(decision)


def merge_candidate_keep_apart(*, candidate: MergeCandidate, actor: Actor) -> AuditEvent:
    """Staff say the pair are two records: later imports never raise the pair again."""
    with transaction.atomic():
        candidate = _open_candidate(candidate)
        changes: dict = {}
        if candidate.kind == MergeCandidate.Kind.AUTHOR:
            pair = {"author_id": candidate.author_a_id, "other_author_id": candidate.author_b_id}
        else:
            pair = {"work_id": candidate.work_a_id, "other_work_id": candidate.work_b_id}
        reason = f"Kept apart by staff (merge candidate #{candidate.pk})"
        _constraint_set(changes, kind=CANNOT, actor=actor, reason=reason, **pair)
        before = _candidate_decide(candidate, MergeCandidate.Status.KEPT_APART, actor)
        return audit_record(
            actor=actor,
            action="merge_candidate_keep_apart",
            target=candidate,
            data={"candidate": before, "constraints": changes},
        )


def _undo_keep_apart(data: dict) -> dict:
    _constraints_restore(data["constraints"])
    _candidate_restore(data["candidate"])
    return {"candidate": data["candidate"]["id"]}


# Works -----------------------------------------------------------------------


def _work_fill_blanks(kept: Work, other: Work) -> tuple[dict, dict]:
    """Fill the kept work's blanks from the other; ids move (they are unique) instead of copy."""
    filled, moved_ids = {}, {}
    for field in WORK_FILL_FIELDS:
        mine, theirs = getattr(kept, field), getattr(other, field)
        if not _blank(mine) or _blank(theirs):
            continue
        filled[field] = mine
        if field in UNIQUE_WORK_IDS:
            moved_ids[field] = theirs
            setattr(other, field, None)
        setattr(kept, field, theirs)
        key = field.removesuffix("_id") if field == "venue_id" else field
        if key in other.provenance:
            kept.provenance[key] = other.provenance[key]
    return filled, moved_ids


def _work_move_rows(kept: Work, other: Work) -> dict:
    """Move what the other work has and the kept one lacks; return the moved ids."""
    kept_authors = Authorship.objects.filter(work=kept).values("author_id")
    kept_topics = WorkTopic.objects.filter(work=kept).values("topic_id")
    kept_grants = set(Grant.objects.filter(work=kept).values_list("funder_id", "award_id"))
    moved = {
        "authorships": list(
            Authorship.objects.filter(work=other)
            .exclude(author_id__in=kept_authors)
            .values_list("pk", flat=True)
        ),
        "topics": list(
            WorkTopic.objects.filter(work=other)
            .exclude(topic_id__in=kept_topics)
            .values_list("pk", flat=True)
        ),
        "grants": [
            pk
            for pk, funder, award in Grant.objects.filter(work=other).values_list(
                "pk", "funder_id", "award_id"
            )
            if (funder, award) not in kept_grants
        ],
        "source_records": list(
            SourceRecord.objects.filter(work=other).values_list("pk", flat=True)
        ),
    }
    for model, key in _WORK_ROWS:
        model.objects.filter(pk__in=moved[key]).update(work=kept)
    return moved


_WORK_ROWS = [
    (Authorship, "authorships"),
    (WorkTopic, "topics"),
    (Grant, "grants"),
    (SourceRecord, "source_records"),
]


def work_merge(
    *, source: Work, target: Work, actor: Actor, candidate: MergeCandidate | None = None
) -> AuditEvent:
    """Merge ``source`` into ``target``: move what target lacks, fill its blanks, hide source."""
    with transaction.atomic():
        kept = Work.objects.select_for_update().get(pk=target.pk)
        other = Work.objects.select_for_update().get(pk=source.pk)
        _check_mergeable(other, kept, "work")
        before_provenance = dict(kept.provenance)
        moved = _work_move_rows(kept, other)
        filled, moved_ids = _work_fill_blanks(kept, other)
        other.merged_into = kept
        other.save()  # first: the ids it gives up must be free before the kept work takes them
        kept.save()
        changes: dict = {}
        reason = "Merged by staff" + (f" (merge candidate #{candidate.pk})" if candidate else "")
        _constraint_set(
            changes, kind=MUST, actor=actor, reason=reason, work_id=kept.pk, other_work_id=other.pk
        )
        decided = (
            _candidate_decide(candidate, MergeCandidate.Status.MERGED, actor) if candidate else None
        )
        followed = _candidates_follow_merge(
            kind="work", source_id=other.pk, target_id=kept.pk, actor=actor
        )
        _refresh_metrics(
            Authorship.objects.filter(work__in=[kept, other]).values_list("author_id", flat=True)
        )
        return audit_record(
            actor=actor,
            action="work_merge",
            target=kept,
            data={
                "source": other.pk,
                "target": kept.pk,
                "moved": moved,
                "filled": filled,
                "moved_ids": moved_ids,
                "provenance": before_provenance,
                "constraints": changes,
                "candidate": decided,
                "followed": followed,
            },
        )


def _undo_work_merge(data: dict) -> dict:
    kept = Work.objects.select_for_update().get(pk=data["target"])
    other = Work.objects.select_for_update().get(pk=data["source"])
    if other.merged_into_id != kept.pk:
        raise ValueError(f"Work #{other.pk} is no longer merged into #{kept.pk}; nothing to undo.")
    for model, key in _WORK_ROWS:
        model.objects.filter(pk__in=data["moved"][key], work=kept).update(work=other)
    for field, value in data["filled"].items():
        setattr(kept, field, value)
    kept.provenance = data["provenance"]
    kept.save()  # first: it gives the moved ids back
    for field, value in data["moved_ids"].items():
        setattr(other, field, value)
    other.merged_into = None
    other.save()
    _constraints_restore(data["constraints"])
    _candidates_restore(data.get("followed", []))
    _candidate_restore(data.get("candidate"))
    _refresh_metrics(
        Authorship.objects.filter(work__in=[kept, other]).values_list("author_id", flat=True)
    )
    return {"source": other.pk, "target": kept.pk}


def _check_mergeable(source, target, noun: str) -> None:
    if source.pk == target.pk:
        raise ValueError(f"A {noun} cannot be merged into itself.")
    if source.merged_into_id:
        raise ValueError(
            f"{source} (#{source.pk}) is already merged into #{source.merged_into_id}."
        )
    if target.merged_into_id:
        raise ValueError(
            f"{target} (#{target.pk}) is itself merged into #{target.merged_into_id}; "
            "merge into that record instead."
        )


# Authors: merge --------------------------------------------------------------


def _authorship_dump(row: Authorship) -> dict:
    return {
        "id": row.pk,
        "work_id": row.work_id,
        "author_id": row.author_id,
        "position": row.position,
        "raw_name": row.raw_name,
        "raw_affiliation": row.raw_affiliation,
        "is_corresponding": row.is_corresponding,
        "source": row.source,
        "confidence": row.confidence,
        "institutions": sorted(i.pk for i in row.institutions.all()),
    }


def _references(author: Author) -> dict[str, int]:
    """Rows of other apps (claims, follows, profiles, ...) that point at this author."""
    counts: dict[str, int] = {}
    for relation in Author._meta.related_objects:
        model = relation.related_model
        if model._meta.app_label == Author._meta.app_label:
            continue
        count = model._default_manager.filter(**{relation.field.name: author}).count()
        if count:
            label = str(model._meta.verbose_name_plural)
            counts[label] = counts.get(label, 0) + count
    return counts


def author_merge_preview(*, source: Author, target: Author) -> dict:
    """What merging ``source`` into ``target`` would move, drop and leave behind."""
    target_works = set(Authorship.objects.filter(author=target).values_list("work_id", flat=True))
    rows = list(Authorship.objects.filter(author=source).select_related("work").order_by("work_id"))
    target_institutions = AuthorInstitution.objects.filter(author=target).values("institution_id")
    affiliations = AuthorInstitution.objects.filter(author=source)
    problems = []
    try:
        _check_mergeable(source, target, "author")
    except ValueError as exc:
        problems.append(str(exc))
    return {
        "works_moving": [a.work for a in rows if a.work_id not in target_works],
        "conflicts": [a.work for a in rows if a.work_id in target_works],
        "affiliations_moving": affiliations.exclude(institution_id__in=target_institutions).count(),
        "affiliations_duplicate": affiliations.filter(
            institution_id__in=target_institutions
        ).count(),
        "source_records": SourceRecord.objects.filter(author=source).count(),
        "constraints_moving": _movable_constraints(source, target).count(),
        "kept_apart": LinkConstraint.objects.filter(
            _pair_query(author_id=source.pk, other_author_id=target.pk), kind=CANNOT
        ).exists(),
        "left_behind": _references(source),
        "problems": problems,
    }


def _movable_constraints(source: Author, target: Author):
    taken = LinkConstraint.objects.filter(author=target, work__isnull=False).values("work_id")
    return LinkConstraint.objects.filter(author=source, work__isnull=False).exclude(
        work_id__in=taken
    )


def author_merge(
    *, source: Author, target: Author, actor: Actor, candidate: MergeCandidate | None = None
) -> AuditEvent:
    """Merge ``source`` into ``target``: its works, affiliations and source records move.

    Where both are on the same work, source's authorship is deleted (kept in the
    audit data). Source stays as a record merged into target, so its ids still
    resolve and its page redirects.
    """
    with transaction.atomic():
        source = Author.objects.select_for_update().get(pk=source.pk)
        target = Author.objects.select_for_update().get(pk=target.pk)
        _check_mergeable(source, target, "author")
        candidate = candidate or _open_author_candidate(source, target)
        data = {"source": source.pk, "target": target.pk, **_author_move_rows(source, target)}
        if target.last_known_institution_id is None and source.last_known_institution_id:
            target.last_known_institution_id = source.last_known_institution_id
            target.save(update_fields=["last_known_institution"])
            data["filled_last_known_institution"] = True
        source.merged_into = target
        source.save(update_fields=["merged_into"])
        changes: dict = {}
        reason = "Merged by staff" + (f" (merge candidate #{candidate.pk})" if candidate else "")
        _constraint_set(
            changes,
            kind=MUST,
            actor=actor,
            reason=reason,
            author_id=target.pk,
            other_author_id=source.pk,
        )
        data["constraints"] = changes
        data["candidate"] = (
            _candidate_decide(candidate, MergeCandidate.Status.MERGED, actor) if candidate else None
        )
        data["followed"] = _candidates_follow_merge(
            kind="author", source_id=source.pk, target_id=target.pk, actor=actor
        )
        _refresh_metrics([source.pk, target.pk])
        return audit_record(actor=actor, action="author_merge", target=target, data=data)


def _open_author_candidate(source: Author, target: Author) -> MergeCandidate | None:
    pair = Q(author_a=source, author_b=target) | Q(author_a=target, author_b=source)
    return MergeCandidate.objects.filter(pair, status=MergeCandidate.Status.OPEN).first()


def _author_move_rows(source: Author, target: Author) -> dict:
    target_works = set(Authorship.objects.filter(author=target).values_list("work_id", flat=True))
    rows = list(Authorship.objects.filter(author=source).prefetch_related("institutions"))
    moved = [
        {"id": a.pk, "work_id": a.work_id, "author_id": source.pk}
        for a in rows
        if a.work_id not in target_works
    ]
    duplicates = [_authorship_dump(a) for a in rows if a.work_id in target_works]
    Authorship.objects.filter(pk__in=[d["id"] for d in duplicates]).delete()
    Authorship.objects.filter(pk__in=[m["id"] for m in moved]).update(author=target)

    target_institutions = set(
        AuthorInstitution.objects.filter(author=target).values_list("institution_id", flat=True)
    )
    affiliations = list(AuthorInstitution.objects.filter(author=source))
    duplicate_affiliations = [
        {
            "id": a.pk,
            "author_id": source.pk,
            "institution_id": a.institution_id,
            "years": a.years,
            "source": a.source,
        }
        for a in affiliations
        if a.institution_id in target_institutions
    ]
    moved_affiliations = [a.pk for a in affiliations if a.institution_id not in target_institutions]
    AuthorInstitution.objects.filter(pk__in=[d["id"] for d in duplicate_affiliations]).delete()
    AuthorInstitution.objects.filter(pk__in=moved_affiliations).update(author=target)

    records = list(SourceRecord.objects.filter(author=source).values_list("pk", flat=True))
    SourceRecord.objects.filter(pk__in=records).update(author=target)
    constraints = list(_movable_constraints(source, target).values_list("pk", flat=True))
    LinkConstraint.objects.filter(pk__in=constraints).update(author=target)
    return {
        "moved_authorships": moved,
        "deleted_authorships": duplicates,
        "moved_affiliations": moved_affiliations,
        "deleted_affiliations": duplicate_affiliations,
        "moved_source_records": records,
        "moved_constraints": constraints,
    }


def _undo_author_merge(data: dict) -> dict:
    source = Author.objects.select_for_update().get(pk=data["source"])
    target = Author.objects.select_for_update().get(pk=data["target"])
    if source.merged_into_id != target.pk:
        raise ValueError(f"{source} is no longer merged into {target}; nothing to undo.")
    moved = [m["id"] for m in data["moved_authorships"]]
    Authorship.objects.filter(pk__in=moved, author=target).update(author=source)
    _authorships_restore(data["deleted_authorships"])
    AuthorInstitution.objects.filter(pk__in=data["moved_affiliations"], author=target).update(
        author=source
    )
    AuthorInstitution.objects.bulk_create(
        [AuthorInstitution(**row) for row in data["deleted_affiliations"]], ignore_conflicts=True
    )
    SourceRecord.objects.filter(pk__in=data["moved_source_records"], author=target).update(
        author=source
    )
    LinkConstraint.objects.filter(pk__in=data["moved_constraints"], author=target).update(
        author=source
    )
    if data.get("filled_last_known_institution"):
        target.last_known_institution = None
        target.save(update_fields=["last_known_institution"])
    source.merged_into = None
    source.save(update_fields=["merged_into"])
    _constraints_restore(data["constraints"])
    _candidates_restore(data.get("followed", []))
    _candidate_restore(data.get("candidate"))
    _refresh_metrics([source.pk, target.pk])
    return {"source": source.pk, "target": target.pk}


def _authorships_restore(rows: list[dict]) -> None:
    rows = [dict(row) for row in rows]
    institutions = {row["id"]: row.pop("institutions") for row in rows}
    Authorship.objects.bulk_create([Authorship(**row) for row in rows])
    Authorship.institutions.through.objects.bulk_create(
        [
            Authorship.institutions.through(authorship_id=pk, institution_id=inst)
            for pk, ids in institutions.items()
            for inst in ids
        ]
    )


# Authors: split --------------------------------------------------------------


def author_split_preview(*, author: Author, work_ids) -> dict:
    """Which of the author's works would move to a new record, and what stays."""
    ids = {int(w) for w in work_ids}
    rows = list(
        Authorship.objects.filter(author=author, work_id__in=ids)
        .select_related("work")
        .order_by("work_id")
    )
    found = {a.work_id for a in rows}
    return {
        "works_moving": [a.work for a in rows],
        "works_staying": Authorship.objects.filter(author=author).exclude(work_id__in=ids).count(),
        "unknown_work_ids": sorted(ids - found),
        "claims_replaced": LinkConstraint.objects.filter(
            author=author, work_id__in=found, kind=MUST
        ).count(),
    }


def author_split(*, author: Author, work_ids, actor: Actor, new_name: str | None = None) -> Author:
    """Move the authorships of ``work_ids`` to a new author record that imports keep apart."""
    with transaction.atomic():
        author = Author.objects.select_for_update().get(pk=author.pk)
        ids = sorted({int(w) for w in work_ids})
        if not ids:
            raise ValueError("Pick at least one work to split off.")
        rows = list(Authorship.objects.filter(author=author, work_id__in=ids))
        missing = sorted(set(ids) - {a.work_id for a in rows})
        if missing:
            listed = ", ".join(f"#{pk}" for pk in missing)
            raise ValueError(f"{author} is not an author of work {listed}.")
        name = (new_name or "").strip() or author.display_name
        new = Author.objects.create(
            display_name=name[:300], normalized_name=normalize_name(name)[:300]
        )
        Authorship.objects.filter(pk__in=[a.pk for a in rows]).update(author=new)
        changes: dict = {}
        reason = f"Split by staff into author #{new.pk}"
        for work_id in ids:
            _constraint_set(
                changes,
                kind=CANNOT,
                actor=actor,
                reason=reason,
                author_id=author.pk,
                work_id=work_id,
            )
        _constraint_set(
            changes,
            kind=CANNOT,
            actor=actor,
            reason=reason,
            author_id=author.pk,
            other_author_id=new.pk,
        )
        _refresh_metrics([author.pk, new.pk])
        audit_record(
            actor=actor,
            action="author_split",
            target=author,
            data={
                "author": author.pk,
                "new_author": new.pk,
                "moved_authorships": [
                    {"id": a.pk, "work_id": a.work_id, "author_id": author.pk} for a in rows
                ],
                "constraints": changes,
            },
        )
        return new


def _undo_author_split(data: dict) -> dict:
    author = Author.objects.select_for_update().get(pk=data["author"])
    new = Author.objects.select_for_update().filter(pk=data["new_author"]).first()
    if new is None or new.merged_into_id:
        raise ValueError(f"Author #{data['new_author']} from the split is gone or merged away.")
    moved = [m["id"] for m in data["moved_authorships"]]
    gained = Authorship.objects.filter(author=new).exclude(pk__in=moved).count()
    if gained:
        raise ValueError(
            f"{new} (#{new.pk}) has gained {gained} work(s) since the split; "
            f"merge it into {author} instead."
        )
    Authorship.objects.filter(pk__in=moved, author=new).update(author=author)
    _constraints_restore(data["constraints"])
    kept_by_others = (
        SourceRecord.objects.filter(author=new).exists()
        or Author.objects.filter(merged_into=new).exists()
    )
    if kept_by_others or _references(new):
        # Something points at it now (a claim, a follow, a merged record): keep it, merged away.
        new.merged_into = author
        new.save(update_fields=["merged_into"])
        outcome = "merged into the original"
    else:
        new.delete()
        outcome = "deleted"
    _refresh_metrics([author.pk])
    return {"author": author.pk, "new_author": data["new_author"], "new_author_was": outcome}


_UNDOERS = {
    "author_merge": _undo_author_merge,
    "author_split": _undo_author_split,
    "work_merge": _undo_work_merge,
    "merge_candidate_keep_apart": _undo_keep_apart,
}


def _refresh_metrics(author_ids) -> None:
    from publications import tasks
    from publications.signals import authors_changed

    ids = sorted(set(author_ids))

    def follow_up() -> None:
        tasks.refresh_author_metrics.delay(ids)
        authors_changed.send(sender=Author, author_ids=ids)

    if ids:
        transaction.on_commit(follow_up)


# Import runs and problems ----------------------------------------------------


def import_run_create(
    *, source: str, kind: str, parameters: dict, actor: Actor, background: bool = False
) -> ImportRun:
    """Queue an import asked for by staff (dispatch.import_run_create, audited).

    ``background``: the caller (a page) does not wait for the run, even without a broker.
    """
    with transaction.atomic():
        run = dispatch.import_run_create(
            source=source,
            kind=kind,
            parameters=parameters,
            requested_by=actor,
            background=background,
        )
        audit_record(
            actor=actor,
            action="import_run_create",
            target=run,
            data={"run": run.pk, "source": source, "kind": kind, "parameters": parameters},
        )
    return run


def import_run_cancel(*, run: ImportRun, actor: Actor) -> ImportRun:
    """Stop a queued or running import after its current batch."""
    with transaction.atomic():
        run = ImportRun.objects.select_for_update().get(pk=run.pk)
        if run.status not in {
            ImportRun.Status.WAITING,
            ImportRun.Status.QUEUED,
            ImportRun.Status.RUNNING,
        }:
            raise ValueError(
                f"{run} is {run.get_status_display().lower()}; it cannot be cancelled."
            )
        previous = run.status
        runs.import_run_cancel(run=run)
        audit_record(
            actor=actor,
            action="import_run_cancel",
            target=run,
            data={"run": run.pk, "status": previous},
        )
    return run


def import_run_retry(*, run: ImportRun, actor: Actor, background: bool = False) -> ImportRun:
    """Queue a failed or cancelled import again; it resumes from its saved cursor."""
    with transaction.atomic():
        run = ImportRun.objects.select_for_update().get(pk=run.pk)
        if run.status not in {ImportRun.Status.FAILED, ImportRun.Status.CANCELLED}:
            raise ValueError(
                f"{run} is {run.get_status_display().lower()}; "
                "only failed or cancelled runs are retried."
            )
        data = {"run": run.pk, "status": run.status, "error": run.error}
        dispatch.import_run_retry(run=run, background=background)
        audit_record(actor=actor, action="import_run_retry", target=run, data=data)
    return run


def _problem_entity(problem: ImportProblem) -> str:
    from publications.sources.files import entity_of

    payload = problem.kept_payload
    if isinstance(payload, dict) and ("arxiv_id" in payload or problem.source == Source.ARXIV):
        return "arxiv"
    return entity_of(payload) or "work"


def _open_problem(problem: ImportProblem) -> ImportProblem:
    problem = ImportProblem.objects.select_for_update().get(pk=problem.pk)
    if problem.status != ImportProblem.Status.OPEN:
        raise ValueError(f"This problem is already {problem.get_status_display().lower()}.")
    return problem


def import_problem_retry(*, problem: ImportProblem, actor: Actor) -> str | None:
    """Map and write the stored payload again; return None if it landed, else the new error."""
    with transaction.atomic():
        problem = _open_problem(problem)
        if problem.kept_payload is None:
            raise ValueError(
                "This problem kept no record to retry (the source answered with an error); "
                "retry its import run instead."
            )
        entity = _problem_entity(problem)
        data = {"problem": problem.pk, "entity": entity, "previous_error": problem.error}
        try:
            ingesting.import_payload(run=problem.run, entity=entity, payload=problem.kept_payload)
        except MappingError as exc:
            error = str(exc)
        except Exception as exc:  # a write that fails is reported, as the import does
            error = f"Could not be written: {exc}"
        else:
            error = None
        if error is None:
            problem.status = ImportProblem.Status.RETRIED
            problem.resolved_by = actor
            problem.resolved_at = timezone.now()
        else:
            problem.error = error
        problem.save(update_fields=["status", "resolved_by", "resolved_at", "error"])
        audit_record(
            actor=actor,
            action="import_problem_retry",
            target=problem,
            data={**data, "succeeded": error is None, "error": error or ""},
        )
        return error


def import_problem_ignore(*, problem: ImportProblem, actor: Actor) -> ImportProblem:
    """Close a problem without importing its record."""
    with transaction.atomic():
        problem = _open_problem(problem)
        problem.status = ImportProblem.Status.IGNORED
        problem.resolved_by = actor
        problem.resolved_at = timezone.now()
        problem.save(update_fields=["status", "resolved_by", "resolved_at"])
        audit_record(
            actor=actor,
            action="import_problem_ignore",
            target=problem,
            data={"problem": problem.pk},
        )
    return problem
