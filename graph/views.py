"""The research graph: the slice on the researcher page and the full explorer."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from config.celery import app as celery_app
from graph import neighbourhood, services, svg
from graph.forms import GraphFilterForm
from publications.models import Author

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
        if celery_app.conf.task_always_eager:  # no worker: build it here and now
            html = services.slice_build(pk)
        else:
            services.slice_request(pk)
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


def explorer(request: HttpRequest, pk: int) -> HttpResponse:
    """A larger, filterable neighbourhood with a list view beside the picture."""
    author = get_object_or_404(
        Author.objects.select_related("metrics", "last_known_institution"), pk=pk
    )
    if author.merged_into_id:
        return redirect(reverse("graph:explorer", args=[author.merged_into_id]), permanent=True)
    if author.is_deleted:
        raise Http404("This author record was deleted at the source.")
    form = GraphFilterForm(request.GET or None, initial={"kinds": list(neighbourhood.KINDS)})
    valid = form.is_valid() if request.GET else True
    hood = neighbourhood.build(author, limits=neighbourhood.EXPLORER, filters=form.filters())
    groups = hood.by_kind()
    find = (form.cleaned_data.get("find") or "").lower() if valid and request.GET else ""
    listed = {
        kind: [n for n in nodes if not find or find in n.label.lower() or find in n.why.lower()]
        for kind, nodes in groups.items()
    }
    context = {
        "author": author,
        "form": form,
        "hood": hood,
        "groups": listed,
        "counts": hood.counts(),
        "find": find,
        "kinds": neighbourhood.KIND_LABELS,
        "picture": svg.draw(hood, size=900, labels=22, title=f"Research graph of {author}"),
    }
    return render(request, "graph/explorer.html", context, status=200 if valid else 400)
