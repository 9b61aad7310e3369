"""Merge an author into another, split works off an author, and undo either."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q

from catalogue.audit import Actor, audit_record
from catalogue.identifiers import normalize_name
from catalogue.models import (
    AuditEvent,
    Author,
    AuthorInstitution,
    Authorship,
    LinkConstraint,
    MergeCandidate,
    SourceRecord,
)
from curation.constraints import (
    CANNOT,
    MUST,
    candidate_decide,
    candidate_restore,
    candidates_follow_merge,
    candidates_restore,
    constraint_set,
    constraints_restore,
    merge_check,
    metrics_refresh,
    pair_query,
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
        merge_check(source, target, "author")
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
            pair_query(author_id=source.pk, other_author_id=target.pk), kind=CANNOT
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
    *,
    source: Author,
    target: Author,
    actor: Actor,
    candidate: MergeCandidate | None = None,
    by: str = "staff",
) -> AuditEvent:
    """Merge ``source`` into ``target``: its works, affiliations and source records move.

    Where both are on the same work, source's authorship is deleted (kept in the
    audit data). Source stays as a record merged into target, so its ids still
    resolve and its page redirects. ``by`` says who decided, in the link's reason.
    """
    with transaction.atomic():
        source = Author.objects.select_for_update().get(pk=source.pk)
        target = Author.objects.select_for_update().get(pk=target.pk)
        merge_check(source, target, "author")
        candidate = candidate or _open_author_candidate(source, target)
        data = {"source": source.pk, "target": target.pk, **_author_move_rows(source, target)}
        if target.last_known_institution_id is None and source.last_known_institution_id:
            target.last_known_institution_id = source.last_known_institution_id
            target.save(update_fields=["last_known_institution"])
            data["filled_last_known_institution"] = True
        source.merged_into = target
        source.save(update_fields=["merged_into"])
        changes: dict = {}
        reason = f"Merged by {by}" + (f" (merge candidate #{candidate.pk})" if candidate else "")
        constraint_set(
            changes,
            kind=MUST,
            actor=actor,
            reason=reason,
            author_id=target.pk,
            other_author_id=source.pk,
        )
        data["constraints"] = changes
        data["candidate"] = (
            candidate_decide(candidate, MergeCandidate.Status.MERGED, actor) if candidate else None
        )
        data["followed"] = candidates_follow_merge(
            kind=MergeCandidate.Kind.AUTHOR, source_id=source.pk, target_id=target.pk, actor=actor
        )
        metrics_refresh([source.pk, target.pk])
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


def author_merge_undo(data: dict) -> dict:
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
    constraints_restore(data["constraints"])
    candidates_restore(data.get("followed", []))
    candidate_restore(data.get("candidate"))
    metrics_refresh([source.pk, target.pk])
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
            constraint_set(
                changes,
                kind=CANNOT,
                actor=actor,
                reason=reason,
                author_id=author.pk,
                work_id=work_id,
            )
        constraint_set(
            changes,
            kind=CANNOT,
            actor=actor,
            reason=reason,
            author_id=author.pk,
            other_author_id=new.pk,
        )
        metrics_refresh([author.pk, new.pk])
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


def author_split_undo(data: dict) -> dict:
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
    constraints_restore(data["constraints"])
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
    metrics_refresh([author.pk])
    return {"author": author.pk, "new_author": data["new_author"], "new_author_was": outcome}
