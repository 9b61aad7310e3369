"""Work list entries drawn ahead of their readers and kept in the database.

A list of works (a researcher's works, search results, citing works) shows each
work as an entry (``publications/_work_item.html``). Drawing an entry is most of
the cost of a page that nobody has asked for lately: its byline alone names up to
60 researchers, each a link. So an entry is drawn once, when the work or
a name it shows changes, and kept as a ``WorkEntry`` row; a list reads the rows
of its works in one indexed query and draws only the entries it does not find.

An entry is the same in every list. What depends on the list is put in when it is
read, at places the drawing marks with HTML comments that no record's text can
make (titles, abstracts and comments are escaped or cleaned of comments):

- ``<!--self:ID-->`` opens the text of each link to researcher ID: on that
  researcher's own page the link is marked as the page itself;
- ``<!--facts-->`` is where that page says why the work is on it (the
  authorship's evidence, source and confidence);
- a pinned entry gets its tag and class.

What makes an entry stale is forgotten by ``pages.receivers``: an imported or
edited work, a researcher whose name or address may have changed, a renamed
venue. Entries of another ``generation`` (another template or drawing code)
count as missing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache

from django.db.models import OuterRef, Subquery
from django.template.loader import get_template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from catalogue.display import clip
from catalogue.models import Authorship, Source, Work
from pages import kept
from pages.models import WorkEntry
from search.cards import works_listed

TEMPLATE = "publications/_work_item.html"
# Raise when the drawing code changes what an entry holds: every kept entry is drawn again.
FORMAT = "1"
# Entries drawn and written at once.
CHUNK = 500

_SELF = re.compile(r"<!--self:(\d+)-->")
_PINNED_TAG = (
    '<span class="tag tag-pinned">Pinned<span class="visually-hidden"> by the researcher'
    "</span></span>"
)


@cache
def generation() -> str:
    """A token of the entry template's text and ``FORMAT``."""
    return kept.generation_of(TEMPLATE, FORMAT)


def draw(work: Work) -> str:
    """The entry of ``work`` as every list shows it (``work`` read by ``works_listed``)."""
    return get_template(TEMPLATE).render({"work": work, "marks": True})


def entries_store(works: Sequence[Work]) -> dict[int, str]:
    """Draw the entries of ``works`` (read with their bylines) and keep them."""
    drawn = {work.pk: draw(work) for work in works}
    kept.keep(WorkEntry, drawn, generation())
    return drawn


def entries_refresh(work_ids: Iterable[int]) -> int:
    """Draw and keep the entries of the works ``work_ids`` still listed; how many."""
    drawn = 0
    for chunk in kept.chunks(work_ids, CHUNK):
        works = works_listed(chunk)
        drawn += len(entries_store([w for w in works if w.merged_into_id is None]))
    return drawn


def entries_forget(work_ids: Iterable[int]) -> list[int]:
    """The entries of these works are stale: forget them. Returns the ids."""
    return kept.forget(WorkEntry, work_ids)


def works_naming(author_ids: Iterable[int]) -> list[int]:
    """The works whose entries may name these researchers (a link in their byline)."""
    ids = sorted({int(pk) for pk in author_ids if pk})
    if not ids:
        return []
    rows = Authorship.objects.filter(author_id__in=ids).values_list("work_id", flat=True)
    return sorted(set(rows))


def entries_of(work_ids: list[int], *, read=None) -> dict[int, str]:
    """The kept entries of ``work_ids``, the missing ones drawn (and kept) now.

    ``read(ids)`` gives works with their bylines for the ids it is asked for (by
    default ``works_listed``); a work no longer listed is left out.
    """
    if not work_ids:
        return {}
    rows = WorkEntry.objects.filter(work_id__in=work_ids, generation=generation())
    found = dict(rows.values_list("work_id", "html"))
    missing = [pk for pk in work_ids if pk not in found]
    if missing:
        works = (read or works_listed)(missing)
        found |= _store_guarded(works)
    return found


def _store_guarded(works: Sequence[Work]) -> dict[int, str]:
    """Draw the entries of ``works`` and keep them where the write goes through."""
    return kept.keep_if_possible(WorkEntry, {work.pk: draw(work) for work in works}, generation())


def _kept_with_facts(author, work_ids: list[int]) -> tuple[dict[int, str], dict[int, str]]:
    """For ``author``'s own list, in one query: the kept entries of those of the works
    ``work_ids`` the author signs, and why each is on the page (the authorship's
    evidence, source and confidence, as a line under the byline)."""
    entry = WorkEntry.objects.filter(work_id=OuterRef("work_id"), generation=generation())
    rows = (
        Authorship.objects.filter(author_id=author.pk, work_id__in=work_ids)
        .annotate(html=Subquery(entry.values("html")[:1]))
        .order_by("-position")  # the first place on a byline last: it wins below
        .values_list("work_id", "evidence", "source", "confidence", "html")
    )
    kept, facts = {}, {}
    name = clip(author.display_name, "name")
    for work_id, evidence, source, confidence, html in rows:
        if html is not None:
            kept[work_id] = html
        label = Source(source).label if source in Source.values else source
        why = format_html("Why here: {} · ", evidence) if evidence else ""
        facts[work_id] = format_html(
            '<small class="link-facts" title="Where the link between {} and this work came'
            ' from">{}Linked by {}, {}% confidence</small>',
            name,
            why,
            label,
            round(confidence * 100),
        )
    return kept, facts


def place(html: str, *, page_author=None, facts: str = "", pinned: bool = False) -> str:
    """A kept entry as a list shows it: the page's own researcher and a pin put in."""
    if page_author is not None:
        mark = f"<!--self:{page_author.pk}-->"
        html = html.replace(f'">{mark}', '" class="is-self" aria-current="page">')
    html = _SELF.sub("", html).replace("<!--facts-->", facts, 1)
    if pinned:
        html = html.replace('<article class="work-item"', '<article class="work-item is-pinned"', 1)
        html = html.replace('<p class="work-meta">', f'<p class="work-meta">\n    {_PINNED_TAG}', 1)
    return html


def entries_html(works, *, page_author=None, pinned: bool = False) -> SafeString:
    """The list entries of ``works`` (a ``search.WorksById``, ids or works), in order."""
    listed = getattr(works, "object_list", works)
    ids = _ids(listed)
    if not ids:
        return mark_safe("")
    read = getattr(listed, "subset", None) or _reader(listed)
    kept, facts = {}, {}
    if page_author is not None:
        kept, facts = _kept_with_facts(page_author, ids)
    missing = [pk for pk in ids if pk not in kept]
    if missing:
        kept |= entries_of(missing, read=read)
    parts = [
        place(kept[pk], page_author=page_author, facts=facts.get(pk, ""), pinned=pinned)
        for pk in ids
        if pk in kept
    ]
    return mark_safe("".join(parts))  # noqa: S308 - drawn by the template, marks only ours


def _ids(listed) -> list[int]:
    ids = getattr(listed, "ids", None)
    if ids is not None:
        return list(ids)
    return [item if isinstance(item, int) else item.pk for item in listed]


def _reader(listed):
    """Read missing works from ``listed`` itself when it holds works read with their
    bylines, else from the database."""
    given = [item for item in listed if isinstance(item, Work) and _with_byline(item)]
    if not given:
        return None

    def read(ids: list[int]) -> list[Work]:
        wanted = set(ids)
        return [work for work in given if work.pk in wanted]

    return read


def _with_byline(work: Work) -> bool:
    """``work`` was read with its byline (``selectors.works_with_authors``)."""
    prefetched = getattr(work, "_prefetched_objects_cache", {})
    return "authorships" in prefetched and "unlinked_authorships" in prefetched


def works_of_venue(venue_id: int) -> list[int]:
    """The works whose entries name this venue."""
    return list(Work.objects.filter(venue_id=venue_id).values_list("pk", flat=True))
