"""Reads for the staff curation pages: side-by-side comparisons, pickers and summaries."""

from __future__ import annotations

from django.apps import apps
from django.db.models import Count, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.urls import NoReverseMatch, reverse

from catalogue import models
from catalogue.byline_reads import firsts
from catalogue.identifiers import normalize_name
from catalogue.models import AuditEvent, Author, Authorship, MergeCandidate, Work

SAMPLE_WORKS = 5
CO_AUTHORS_SHOWN = 4  # names of a work's line; its other authors are counted
LISTED = 20  # authors, records and places a comparison lists of one record; more are counted


def _first(rows: QuerySet, line, noun: str) -> list[str]:
    """``line`` of each of the first ``LISTED`` of ``rows``, then ``… and 12 more <noun>``."""
    shown = [line(row) for row in rows[: LISTED + 1]]
    if len(shown) <= LISTED:
        return shown
    return [*shown[:LISTED], f"… and {rows.count() - LISTED} more {noun}"]


def target_model(target_type: str):
    try:
        return apps.get_model(target_type)
    except (LookupError, ValueError):
        return None


def admin_url(target_type: str, target_id: str) -> str | None:
    model = target_model(target_type)
    if model is None:
        return None
    try:
        name = f"admin:{model._meta.app_label}_{model._meta.model_name}_change"
        return reverse(name, args=[target_id])
    except NoReverseMatch:
        return None


def parameters_summary(parameters: dict) -> str:
    """``{"dois": [a, b, c, d]}`` as ``dois: a, b, c +1 more``."""
    parts = []
    for key, value in (parameters or {}).items():
        if isinstance(value, list):
            text = ", ".join(map(str, value[:3]))
            text += f" +{len(value) - 3} more" if len(value) > 3 else ""
        elif isinstance(value, dict):
            text = ", ".join(f"{k}:{v}" for k, v in value.items())
        else:
            text = str(value)
        parts.append(f"{key}: {text}")
    return "; ".join(parts)


# Authors ----------------------------------------------------------------------


def author_by_id(value) -> Author | None:
    try:
        pk = int(value)
    except (TypeError, ValueError):
        return None
    return Author.objects.select_related("last_known_institution").filter(pk=pk).first()


def merge_target_choices(source: Author, query: str) -> list[Author]:
    """Authors matching the search, or the source's namesakes when nothing was searched."""
    authors = (
        Author.objects.visible()
        .exclude(pk=source.pk)
        .select_related("last_known_institution")
        .annotate(works_total=Count("authorships"))
    )
    if not query:
        return list(authors.filter(normalized_name=source.normalized_name).order_by("pk")[:20])
    match = (
        Q(display_name__icontains=query)
        | Q(normalized_name__icontains=normalize_name(query))
        | Q(openalex_id__iexact=query)
        | Q(orcid=query)
    )
    if query.isdigit():
        match |= Q(pk=int(query))
    return list(authors.filter(match).order_by("display_name", "pk")[:20])


def _works_with_authors(queryset):
    """Works with their first authors (enough for ``work_line``) and ``authorships_total``."""
    first = Authorship.objects.select_related("author").order_by("position", "id")
    total = (
        Authorship.objects.filter(work=OuterRef("pk"))
        .order_by()
        .values("work")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return (
        queryset.select_related("venue")
        .annotate(authorships_total=Coalesce(Subquery(total), 0))
        .prefetch_related(
            Prefetch("authorships", queryset=firsts(first, CO_AUTHORS_SHOWN + 1)),
        )
    )


def author_works_for_split(author: Author) -> list[Work]:
    """Every work of ``author``, each with ``coauthors``: its first co-authors' names."""
    works = Work.objects.filter(authorships__author=author).order_by("-publication_year", "title")
    works = list(_works_with_authors(works))
    for work in works:
        work.coauthors = coauthors_text(work, author)
    return works


def coauthors_text(work: Work, author: Author) -> str:
    """``A, B, C, D +12``: the first co-authors of ``author`` on ``work`` (as read above)."""
    names = [a.author.display_name for a in work.authorships.all() if a.author_id != author.pk]
    left_out = max(work.authorships_total - 1, len(names)) - CO_AUTHORS_SHOWN
    return ", ".join(names[:CO_AUTHORS_SHOWN]) + (f" +{left_out}" if left_out > 0 else "")


def work_line(work: Work, author: Author) -> str:
    """``2021 · Title — with A, B, C +12`` for one of ``author``'s works."""
    shown = coauthors_text(work, author)
    year = work.publication_year or "n.d."
    return f"{year} · {work}" + (f" — with {shown}" if shown else " — no co-authors")


def author_card(author: Author | None) -> dict | None:
    if author is None:
        return None
    works = _works_with_authors(
        Work.objects.filter(authorships__author=author).order_by("-publication_year", "-id")
    )
    affiliations = author.affiliations.select_related("institution").order_by("pk")
    return {
        "author": author,
        "works_count": Authorship.objects.filter(author=author).count(),
        "sample": [work_line(w, author) for w in works[:SAMPLE_WORKS]],
        "institutions": _first(affiliations, lambda a: a.institution.name, "institutions"),
        "source_records": author.source_records.count(),
    }


# Merge candidates -----------------------------------------------------------


def _row(label: str, a, b) -> dict:
    def as_list(value) -> list[str]:
        if value is None or value == "" or value == []:
            return []
        return [str(v) for v in value] if isinstance(value, list) else [str(value)]

    left, right = as_list(a), as_list(b)
    many = isinstance(a, list) or isinstance(b, list)
    return {"label": label, "sides": [left, right], "differs": left != right, "many": many}


def _work_facts(work: Work) -> dict:
    authorships = work.authorships.select_related("author").order_by("position", "id")
    records = work.source_records.order_by("source", "external_id")
    return {
        "Title": work.title,
        "Year": work.publication_year,
        "Type": work.get_type_display(),
        "Venue": work.venue.name if work.venue else None,
        "DOI": work.doi,
        "arXiv id": work.arxiv_id,
        "OpenAlex id": work.openalex_id,
        "Authors": _first(
            authorships, lambda a: f"{a.position + 1}. {a.author.display_name}", "authors"
        ),
        "Cited by": work.cited_by_count,
        "Source records": _first(records, lambda r: f"{r.source} {r.external_id}", "records"),
        "Merged into": f"#{work.merged_into_id}" if work.merged_into_id else None,
    }


def _author_facts(author: Author) -> dict:
    card = author_card(author)
    return {
        "Name": author.display_name,
        "Other names": author.alternative_names[:8],
        "OpenAlex id": author.openalex_id,
        "ORCID iD": author.orcid,
        "Last known institution": author.last_known_institution,
        "Affiliations": card["institutions"],
        "Works": card["works_count"],
        f"Latest {SAMPLE_WORKS} works, with co-authors": card["sample"],
        "Source records": card["source_records"],
        "Merged into": f"#{author.merged_into_id}" if author.merged_into_id else None,
    }


def _side(obj, letter: str, role: str) -> dict:
    opts = obj._meta
    return {
        "letter": letter,
        "role": role,
        "object": obj,
        "admin_url": reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk]),
        "public_url": obj.get_absolute_url(),
    }


def candidate_comparison(candidate: MergeCandidate) -> dict:
    """Both records of a candidate as aligned rows, with the rows that differ marked."""
    if candidate.kind == MergeCandidate.Kind.WORK:
        ids = [candidate.work_a_id, candidate.work_b_id]
        found = {w.pk: w for w in Work.objects.select_related("venue").filter(pk__in=ids)}
        a, b = found[candidate.work_a_id], found[candidate.work_b_id]
        facts_a, facts_b = _work_facts(a), _work_facts(b)
        noun = "work"
    else:
        authors = Author.objects.select_related("last_known_institution")
        a = authors.get(pk=candidate.author_a_id)
        b = authors.get(pk=candidate.author_b_id)
        facts_a, facts_b = _author_facts(a), _author_facts(b)
        noun = "author"
    return {
        "noun": noun,
        "sides": [
            _side(a, "A", "kept when merged"),
            _side(b, "B", "merged into A (its page then redirects to A)"),
        ],
        "rows": [_row(label, facts_a[label], facts_b[label]) for label in facts_a],
    }


def candidate_decision_event(candidate: MergeCandidate) -> AuditEvent | None:
    """The audit event that decided this candidate (its page has the Undo button)."""
    if candidate.status == MergeCandidate.Status.KEPT_APART:
        return AuditEvent.objects.filter(
            action="merge_candidate_keep_apart",
            target_type=MergeCandidate._meta.label_lower,
            target_id=str(candidate.pk),
        ).first()
    if candidate.status == MergeCandidate.Status.MERGED:
        return AuditEvent.objects.filter(
            action__in=["author_merge", "work_merge"], data__candidate__id=candidate.pk
        ).first()
    return None


# Split proposals --------------------------------------------------------------


def split_groups(proposal: models.SplitProposal) -> list[dict]:
    """The groups of a split proposal with their works (title and year), largest first:
    the first stays on the record, the others would each become a record of their own.
    A work the record no longer holds is listed as gone."""
    ids = {int(w) for group in proposal.groups for w in group.get("work_ids", ())}
    works = Work.objects.filter(pk__in=ids).only("pk", "title", "publication_year")
    found = {w.pk: w for w in works}
    held = set(
        Authorship.objects.filter(author_id=proposal.author_id, work_id__in=ids).values_list(
            "work_id", flat=True
        )
    )
    ordered = sorted(proposal.groups, key=lambda g: len(g.get("work_ids", ())), reverse=True)
    return [
        {
            "summary": group.get("summary", ""),
            "role": "stays on the record" if n == 0 else "becomes a new record",
            "works": [
                {"work": found.get(int(w)), "pk": int(w), "held": int(w) in held}
                for w in group.get("work_ids", ())
            ],
        }
        for n, group in enumerate(ordered)
    ]


def split_decision_event(proposal: models.SplitProposal) -> AuditEvent | None:
    """The audit event that decided this proposal."""
    return AuditEvent.objects.filter(
        action__in=["split_proposal_split", "split_proposal_keep_whole"],
        target_type=models.SplitProposal._meta.label_lower,
        target_id=str(proposal.pk),
    ).first()


# Import runs ------------------------------------------------------------------


def progress_text(run) -> str:
    """``12 / 40 (30%)``, or the count alone while the total is unknown.

    A source's total is an estimate until the run has read it all, so what is done
    never shows above it: past it, the count stands alone.
    """
    if run.total and run.total >= run.processed:
        percent = min(100, round(100 * run.processed / run.total))
        return f"{run.processed:,} / {run.total:,} ({percent}%)"
    if run.status == models.ImportRun.Status.SUCCEEDED:
        return f"{run.processed:,} / {run.processed:,} (100%)"
    return f"{run.processed:,} read"


def progress_state(run) -> dict:
    percent = None
    if run.status == models.ImportRun.Status.SUCCEEDED:
        percent = 100
    elif run.total and run.total >= run.processed:
        percent = min(100, round(100 * run.processed / run.total))
    return {
        "status": run.status,
        "status_label": run.get_status_display(),
        "processed": run.processed,
        "total": run.total,
        "percent": percent,
        "text": progress_text(run),
        "counters": {k: v for k, v in (run.counters or {}).items() if isinstance(v, int)},
        "finished": run.status not in models.ImportRun.ACTIVE_STATUSES,
    }
