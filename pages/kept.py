"""What pages keep drawn ahead of their visitors, a row a record: the parts every kind shares.

Each kind (``pages.entries``, ``pages.similar``, ``pages.summaries``,
``pages.researcher_summaries``, ``pages.researcher_works``, and the pages kept whole,
``pages.researcher_pages`` and ``pages.work_pages``) draws its HTML
from its templates and keeps it in a ``KeptDrawing`` model; ``generation`` names the
templates' text and the drawing code, so a row of another generation counts as missing.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

from django.contrib.staticfiles.storage import staticfiles_storage
from django.db import DatabaseError, connection, transaction
from django.db.models import Model
from django.template import engines
from django.template.loader import get_template
from django.template.utils import get_app_template_dirs
from django.utils import timezone

logger = logging.getLogger("pages")

# Rows forgotten in one statement.
FORGET_CHUNK = 5_000


def generation_of(template_name: str, drawing_format: str) -> str:
    """A token of the template's text and the drawing code's format number."""
    template = get_template(template_name)
    source = getattr(getattr(template, "template", None), "source", "")
    token = f"{drawing_format}|{source}".encode()
    return hashlib.sha1(token, usedforsecurity=False).hexdigest()[:16]


@cache
def site_files() -> str:
    """A token of the text of every template the site's engines can load and of the
    static files' stored names: for a page kept whole, which a deployment changing
    either must draw again."""
    digest = hashlib.sha1(usedforsecurity=False)
    folders = [Path(d) for engine in engines.all() for d in getattr(engine, "dirs", [])]
    folders += [Path(d) for d in get_app_template_dirs("templates")]
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            digest.update(str(path.relative_to(folder)).encode())
            digest.update(path.read_bytes())
    names = getattr(staticfiles_storage, "hashed_files", {}) or {}
    digest.update(repr(sorted(names.items())).encode())
    return digest.hexdigest()[:16]


def for_site(token: str) -> str:
    """``token`` (of templates and drawing code) with the site's name and the address
    links start with, for drawings that write them (a DEBUG run without ``SITE_URL``
    takes the address from each request)."""
    from django.conf import settings

    from config.sites import site_url

    site = f"{token}|{settings.SITE_NAME}|{site_url()}"
    return hashlib.sha1(site.encode(), usedforsecurity=False).hexdigest()[:16]


def kept_row(model: type[Model], pk: int, generation: str, columns: tuple[str, ...]):
    """The ``columns`` of the record's row of ``model`` drawn by ``generation``, or None.

    In plain SQL: on a page nobody asked for lately, the ORM's query costs more to
    build than to run.
    """
    quote = connection.ops.quote_name
    names = ", ".join(quote(column) for column in columns)
    table, key = quote(model._meta.db_table), quote(model._meta.pk.column)
    sql = f"SELECT {names} FROM {table} WHERE {key} = %s AND generation = %s"  # noqa: S608
    with connection.cursor() as cursor:
        cursor.execute(sql, [pk, generation])
        return cursor.fetchone()


def _rows(model: type[Model], drawn: dict, generation: str) -> list[Model]:
    """``drawn`` as rows of ``model``: the record's id (a work's, or a researcher's) ->
    its HTML, or the fields of a kind that keeps more than one part (the same fields
    for every record). In id order: one order for every writer, no deadlock between two."""
    key = model._meta.pk
    now = timezone.now()
    parts = {pk: {"html": d} if isinstance(d, str) else d for pk, d in drawn.items()}
    return [
        model(**{key.attname: pk}, generation=generation, rendered_at=now, **parts[pk])
        for pk in sorted(parts)
    ]


def keep(model: type[Model], drawn: dict[int, str | dict[str, str]], generation: str) -> None:
    """Keep the drawings (see ``_rows``) as rows of ``model``, replacing older ones."""
    if not drawn:
        return
    model.objects.bulk_create(
        _rows(model, drawn, generation),
        update_conflicts=True,
        unique_fields=[model._meta.pk.name],
        update_fields=[f.name for f in model._meta.concrete_fields if not f.primary_key],
    )


def keep_if_possible(model: type[Model], drawn: dict, generation: str) -> dict:
    """Keep what a page drew for its reader where no current drawing is kept yet.

    A page reads the records, draws, then keeps. A change committing meanwhile forgets
    the row and has it drawn again from the new records: were the page to replace
    rows, its older drawing could land last and stay. So it only fills a gap (a row
    of another generation is removed first), and a reader whose write is refused (a
    deadlock with another reader) still has its drawings: keeping is a saving, not a
    duty.
    """
    if not drawn:
        return drawn
    try:
        with transaction.atomic():
            model.objects.filter(pk__in=sorted(drawn)).exclude(generation=generation).delete()
            model.objects.bulk_create(_rows(model, drawn, generation), ignore_conflicts=True)
    except DatabaseError:
        logger.warning("Could not keep %s %s rows", len(drawn), model.__name__, exc_info=True)
    return drawn


def chunks(record_ids: Iterable[int], size: int) -> Iterator[list[int]]:
    """``record_ids``, each once and in id order, ``size`` at a time: the records a
    kind draws and writes at once."""
    ids = sorted(set(record_ids))
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def forget(model: type[Model], record_ids: Iterable[int]) -> list[int]:
    """The drawings of these records are stale: forget them. Returns the ids."""
    ids = sorted({int(pk) for pk in record_ids if pk})
    for chunk in chunks(ids, FORGET_CHUNK):
        model.objects.filter(pk__in=chunk).delete()
    return ids


def forget_twice(model: type[Model], forget_them) -> None:
    """Run ``forget_them()`` now and, inside a transaction, again once it commits: the
    forgetting of a page kept whole (rows of ``model``), whose visitor keeps what it drew
    where none is kept (see ``pages.whole.keep_checked``). The change's page versions
    are renewed when it commits, before this (``pages.receivers`` renews them first).
    Where no page of ``model`` is kept (a first import, pages not kept), nothing is read.
    """

    def when_kept() -> None:
        if model.objects.exists():
            forget_them()

    when_kept()
    if connection.in_atomic_block:
        transaction.on_commit(when_kept)
