"""The research graph: the slice on the researcher page and the full explorer."""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlencode

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET

from catalogue.models import Author
from graph import crowd, neighbourhood, paper, services, svg, tasks
from graph.forms import GraphFilterForm

# After this many polls the placeholder stops asking and points to the explorer.
MAX_POLLS = 20


@require_GET
def graph_slice(request: HttpRequest, pk: int) -> HttpResponse:
    """The slice fragment: from the cache, or a placeholder while a worker builds it."""
    html = services.slice_cached(pk)
    if html is None:
        author = services.author_for_graph(pk)
        if author is None:
            raise Http404("No researcher has this id.")
        if settings.CELERY_TASK_ALWAYS_EAGER:  # no worker: build it here and now
            html = services.slice_build(pk)
        else:
            if services.slice_mark_queued(pk):
                tasks.build_slice.delay(pk)
            html = services.slice_cached(pk)  # built here when the broker is down
        if html is None:
            try:
                polls = max(0, int(request.GET.get("poll", "0")))
            except ValueError:
                polls = 0
            return render(
                request,
                "graph/_building.html",
                {"author": author, "poll": polls + 1, "gave_up": polls >= MAX_POLLS},
            )
    response = HttpResponse(html)
    response["Cache-Control"] = "private, max-age=60"
    return response


# Filters a step to another researcher keeps (the list search is for one page only).
CARRIED_FILTERS = ("kinds", "year_from", "year_to", "min_joint")


def _carried(form: GraphFilterForm) -> str:
    """The query string of the explorer's valid filters, for the next researcher's page."""
    if not form.is_bound or not form.is_valid():
        return ""
    params = [(key, value) for key in CARRIED_FILTERS for value in form.data.getlist(key) if value]
    return "?" + urlencode(params) if params else ""


def _recentre(carry: str):
    """The explorer address of a node the explorer can centre on (people and papers)."""

    def address(node: neighbourhood.Node) -> str | None:
        number = node.id[1:]
        if not number.isdigit():
            return None
        if node.kind == neighbourhood.PERSON and node.id[0] == "a":
            return reverse("graph:explorer", args=[int(number)]) + carry
        if node.kind == neighbourhood.PAPER and node.id[0] == "w":
            return reverse("graph:work-explorer", args=[int(number)])
        return None

    return address


def _with_centre_links(groups: dict, address) -> dict:
    return {kind: [(node, address(node)) for node in nodes] for kind, nodes in groups.items()}


def _render_explorer(request: HttpRequest, context: dict, status: int = 200) -> HttpResponse:
    """The whole page, or only the explorer when htmx swaps it in place."""
    swap = bool(request.htmx) and not request.htmx.history_restore_request
    template = "graph/_explorer_fragment.html" if swap else "graph/explorer.html"
    response = render(request, template, context, status=status)
    # The same address answers a page or a fragment: caches must keep them apart.
    patch_vary_headers(response, ("HX-Request", "HX-History-Restore-Request"))
    return response


EMPTY_KINDS_NOTE = "graph-kinds-empty"


def _right_slug(request: HttpRequest, name: str, pk: int, slug: str | None, right: str):
    """A redirect to the address with the ``right`` slug when ``slug`` is another, else None."""
    if slug is None or slug == right:
        return None
    url = reverse(name, kwargs={"pk": pk, "slug": right})
    if request.GET:
        url = f"{url}?{request.GET.urlencode()}"
    return redirect(url, permanent=True)


def _counts_of_every_kind(author, hood, filters: neighbourhood.Filters) -> dict[str, int]:
    """How many of each kind the explorer could show with these years and joint works.

    A kind the visitor switched off counts as if it were on, so that only kinds with
    nothing to show are disabled in the form, never one the visitor may switch back on.
    """
    shown = hood.counts()
    if set(filters.kinds) >= set(neighbourhood.SHOWABLE):
        return shown
    every = replace(filters, kinds=neighbourhood.SHOWABLE)
    could = neighbourhood.build(author, limits=neighbourhood.EXPLORER, filters=every).counts()
    return {kind: shown[kind] if kind in filters.kinds else could[kind] for kind in could}


def explorer(request: HttpRequest, pk: int, slug: str | None = None) -> HttpResponse:
    """A larger, filterable neighbourhood with a list view beside the picture."""
    author = get_object_or_404(
        Author.objects.select_related("metrics", "last_known_institution"), pk=pk
    )
    if author.merged_into_id:  # not permanent: staff can undo a merge
        return redirect(reverse("graph:explorer", args=[author.merged_into_id]))
    if author.is_deleted:
        raise Http404("This author record was deleted at the source.")
    if moved := _right_slug(request, "graph:explorer-slugged", pk, slug, author.slug):
        return moved
    form = GraphFilterForm(request.GET or None, initial={"kinds": list(neighbourhood.SHOWABLE)})
    valid = form.is_valid() if request.GET else True
    filters = form.filters()
    hood = neighbourhood.build(author, limits=neighbourhood.EXPLORER, filters=filters)
    counts = _counts_of_every_kind(author, hood, filters)
    empty = [kind for kind in neighbourhood.SHOWABLE if not counts.get(kind)]
    form.switch_off(empty, note_id=EMPTY_KINDS_NOTE)
    groups = hood.by_kind()
    find = (form.cleaned_data.get("find") or "").lower() if valid and request.GET else ""
    listed = {
        kind: [n for n in nodes if not find or find in n.label.lower() or find in n.why.lower()]
        for kind, nodes in groups.items()
    }
    address = _recentre(_carried(form))
    title = f"Research graph of {author}"
    context = {
        "author": author,
        "centre_name": author.display_name,
        "centre_url": author.get_absolute_url(),
        "explorer_url": reverse("graph:explorer", args=[author.pk]),
        "form": form,
        "hood": hood,
        "groups": _with_centre_links(listed, address),
        "counts": counts,
        "empty_kinds": [neighbourhood.SHOW_LABELS[kind] for kind in empty],
        "empty_kinds_note": EMPTY_KINDS_NOTE,
        "find": find,
        "kinds": neighbourhood.KIND_LABELS,
        "page_title": title,
        "picture": _picture(hood, title, address),
    }
    return _render_explorer(request, context, status=200 if valid else 400)


def _picture(hood: neighbourhood.Neighbourhood, title: str, address) -> svg.Drawing:
    """The explorer's picture: dense kinds grouped, names large enough for a phone."""
    return svg.draw(
        hood,
        size=900,
        labels=22,
        narrow_labels=8,
        title=title,
        recentre=address,
        caps=crowd.EXPLORER_CAPS,
    )


@require_GET
def work_explorer(request: HttpRequest, pk: int, slug: str | None = None) -> HttpResponse:
    """The explorer centred on a paper: its authors, affiliations, topics and similar works."""
    work = paper.work_for_graph(pk)
    if work is None:
        raise Http404("No work has this id.")
    if work.merged_into_id:
        return redirect(reverse("graph:work-explorer", args=[work.merged_into_id]))
    if moved := _right_slug(request, "graph:work-explorer-slugged", pk, slug, work.slug):
        return moved
    hood = paper.build_paper(work)
    address = _recentre("")
    name = paper.paper_label(work.pk, work.title)
    title = f"Research graph of {name}"
    context = {
        "work": work,
        "centre_name": name,
        "centre_url": work.get_absolute_url(),
        "explorer_url": reverse("graph:work-explorer", args=[work.pk]),
        "hood": hood,
        "groups": _with_centre_links(hood.by_kind(), address),
        "counts": hood.counts(),
        "kinds": neighbourhood.KIND_LABELS,
        "page_title": title,
        "picture": _picture(hood, title, address),
    }
    return _render_explorer(request, context)
