"""Records as large as real ones: every page shows them with bounded queries, size and time.

The records (tests/curation/big_records.py): a work with 3,000 authors,
3,000 references, 3,000 works citing it and 3,000 grants, hundreds of topics and
source records; the researcher on it and on 3,000 other works; an institution,
venue, topic and funder that thousands of rows point at. They are written once
for the module, in a transaction rolled back at its end.

Every model the admin offers is walked: its list, its largest record's page, the
record's delete confirmation and history. So are the public pages and the API
reads of these records. Each answers with at most a fixed number of queries and
bytes, whatever the records' size, in a time measured loosely (a busy machine
is slow; a page reading thousands of rows is slower still by far).
"""

from __future__ import annotations

import re
import time
from html.parser import HTMLParser

import pytest
from django import forms
from django.contrib import admin
from django.contrib.admin.widgets import (
    AutocompleteMixin,
    ForeignKeyRawIdWidget,
    ManyToManyRawIdWidget,
)
from django.db import transaction
from django.test import RequestFactory
from django.urls import reverse

from catalogue.byline_reads import LISTED
from catalogue.models import Authorship, UnlinkedAuthorship, Work
from catalogue.selectors import (
    BYLINE_PAGE,
    BYLINES_SHOWN,
    FUNDERS_SHOWN,
    TOPICS_SHOWN,
    works_with_authors,
)
from curation.admin.limits import DELETED_SHOWN, ROWS_SHOWN, CappedInlineFormSet
from pages.api.works import FIRST_ROWS
from tests.curation.big_records import MANY, SIZE, big_world
from tests.factories import AuthorFactory, WorkFactory

pytestmark = pytest.mark.django_db

ADMIN_QUERIES = 80  # the work's page: its first ROWS_SHOWN authorships, an author's name each
PAGE_QUERIES = 40
MAX_BYTES = 400_000
MAX_SECONDS = 5.0
# Related models a form may offer as a list: the code, not the corpus, sets their size.
SMALL_TABLES = {
    "auth.group",
    "auth.permission",
    "contenttypes.contenttype",
    "sites.site",
    "socialaccount.socialapp",
}


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock(), transaction.atomic():
        yield big_world()
        transaction.set_rollback(True)


def bounded(client, django_assert_max_num_queries, url, *, queries=PAGE_QUERIES, ok=(200,)):
    """The page at ``url``: it answers ``ok`` with at most ``queries``, MAX_BYTES, MAX_SECONDS."""
    start = time.perf_counter()
    with django_assert_max_num_queries(queries):
        response = client.get(url)
        body = b"".join(response.streaming_content) if response.streaming else response.content
    seconds = time.perf_counter() - start
    assert response.status_code in ok, f"{url}: {response.status_code}"
    assert len(body) <= MAX_BYTES, f"{url}: {len(body)} bytes"
    assert seconds < MAX_SECONDS, f"{url}: {seconds:.1f} s"
    return body.decode()


def _label(model) -> str:
    return model._meta.label_lower


REGISTERED = sorted(admin.site._registry, key=_label)


def _admin_request(staff):
    request = RequestFactory().get("/admin/")
    request.user = staff
    return request


def _forms_of(model_admin, request):
    yield model_admin.get_form(request, None, change=True)
    for inline in model_admin.get_inline_instances(request):
        yield inline.get_formset(request).form


def _lists_every_row(field) -> bool:
    widget = getattr(field.widget, "widget", field.widget)  # inside RelatedFieldWidgetWrapper
    picks_by_id = (ForeignKeyRawIdWidget, ManyToManyRawIdWidget, AutocompleteMixin)
    return not isinstance(widget, picks_by_id) and not isinstance(widget, forms.HiddenInput)


# The rules, for every model the admin offers -------------------------------------


@pytest.mark.parametrize("model", REGISTERED, ids=_label)
def test_no_admin_form_lists_every_row_of_a_table_the_corpus_grows(model, staff):
    request = _admin_request(staff)
    listing = [
        f"{name} lists every {_label(field.queryset.model)}"
        for form in _forms_of(admin.site._registry[model], request)
        for name, field in form.base_fields.items()
        if isinstance(field, forms.ModelChoiceField)
        and _label(field.queryset.model) not in SMALL_TABLES
        and _lists_every_row(field)
    ]
    assert not listing


@pytest.mark.parametrize("model", REGISTERED, ids=_label)
def test_every_inline_edits_a_bounded_number_of_rows(model, staff):
    request = _admin_request(staff)
    for inline in admin.site._registry[model].get_inline_instances(request):
        assert issubclass(inline.get_formset(request), CappedInlineFormSet), inline


@pytest.mark.parametrize("model", REGISTERED, ids=_label)
def test_each_admin_page_of_the_largest_record_answers_quickly(
    world, staff_client, django_assert_max_num_queries, model
):
    opts = model._meta
    record = world.records.get(model) or model._default_manager.order_by("pk").first()
    urls = [reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")]
    if record is not None:
        urls += [
            reverse(f"admin:{opts.app_label}_{opts.model_name}_{page}", args=[record.pk])
            for page in ("change", "delete", "history")
        ]
    for url in urls:
        # 403: a delete the admin offers no one (claims, reports, the audit trail).
        bounded(
            staff_client, django_assert_max_num_queries, url, queries=ADMIN_QUERIES, ok=(200, 403)
        )


@pytest.mark.parametrize(
    ("model_name", "field", "term"),
    [("authorship", "institutions", "Laboratory 1"), ("profile", "pinned_works", "citing")],
)
def test_a_form_picks_related_rows_by_searching_them(
    world, staff_client, django_assert_max_num_queries, model_name, field, term
):
    app = "profiles" if model_name == "profile" else "publications"
    query = f"app_label={app}&model_name={model_name}&field_name={field}&term={term}"
    url = f"{reverse('admin:autocomplete')}?{query}"
    bounded(staff_client, django_assert_max_num_queries, url)
    assert staff_client.get(url).json()["results"]


# The admin pages of the largest work ------------------------------------------------


def test_the_work_page_edits_its_first_authorships_and_links_to_all(
    world, staff_client, django_assert_max_num_queries
):
    url = reverse("admin:publications_work_change", args=[world.work.pk])
    html = bounded(staff_client, django_assert_max_num_queries, url, queries=ADMIN_QUERIES)
    assert f'name="authorships-INITIAL_FORMS" value="{ROWS_SHOWN}"' in html
    assert f"The first {ROWS_SHOWN} of {SIZE} authorships are shown here" in html
    every = reverse("admin:publications_authorship_changelist")
    link = f"{every}?work__id__exact={world.work.pk}"
    assert f'href="{link}"' in html
    listed = bounded(staff_client, django_assert_max_num_queries, link, queries=ADMIN_QUERIES)
    assert f"{SIZE} authorships" in listed


class _FormValues(HTMLParser):
    """The values a browser would send from the page's form ``form_id``."""

    def __init__(self, form_id: str):
        super().__init__()
        self.form_id, self.inside, self.values = form_id, False, []
        self._select = self._textarea = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.inside = attrs.get("id") == self.form_id
        if not self.inside or not attrs.get("name") and tag != "option":
            return
        if tag == "input" and attrs.get("type") not in ("submit", "button", "file"):
            ticked = attrs.get("type") in ("checkbox", "radio")
            if not ticked or "checked" in attrs:
                self.values.append((attrs["name"], attrs.get("value", "on" if ticked else "")))
        elif tag == "select":
            self._select = attrs["name"]
        elif tag == "option" and self._select and "selected" in attrs:
            self.values.append((self._select, attrs.get("value", "")))
        elif tag == "textarea":
            self._textarea = attrs["name"]
            self.values.append((self._textarea, ""))

    def handle_data(self, data):
        if self._textarea:
            name, text = self.values.pop()
            self.values.append((name, text + data))

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None
        elif tag == "form":
            self.inside = False


def test_the_largest_work_saves_from_its_admin_page(world, staff_client):
    url = reverse("admin:publications_work_change", args=[world.work.pk])
    parser = _FormValues("work_form")
    parser.feed(staff_client.get(url).content.decode())
    data = {}
    for name, value in parser.values:
        data.setdefault(name, []).append(value)
    data["title"] = ["Observation of a new particle, revised"]
    data["_continue"] = ["Save"]
    response = staff_client.post(url, data)
    assert response.status_code == 302, re.findall(r"errorlist.{0,200}", response.content.decode())
    assert Work.objects.get(pk=world.work.pk).title == "Observation of a new particle, revised"
    assert Authorship.objects.filter(work=world.work).count() == SIZE


def test_a_delete_confirmation_names_a_few_rows_of_each_kind_and_counts_the_rest(
    world, staff_client, django_assert_max_num_queries
):
    grants = world.funder.grants.count()
    url = reverse("admin:publications_funder_delete", args=[world.funder.pk])
    html = bounded(staff_client, django_assert_max_num_queries, url, queries=ADMIN_QUERIES)
    assert f"Grants: {grants}" in html
    assert html.count("Grant: <a href=") == DELETED_SHOWN
    assert f"… and {grants - DELETED_SHOWN} more grants" in html


# Public pages and the API ----------------------------------------------------------


def _public_urls(w) -> list[str]:
    work, author, cited = w.work.get_absolute_url(), w.author.get_absolute_url(), w.citers[0]
    api_work = f"/api/v1/works/{w.work.pk}"
    return [
        work,
        f"{work}?authors=all",
        f"{work}?authors=all&authors_page=6",
        f"{work}?references=120&cited_by=300",
        cited.get_absolute_url(),  # the large work among those citing it
        f"/works/{w.work.pk}/export.bib",
        f"/works/{w.work.pk}/export.ris",
        author,
        f"{author}?sort=cited",
        f"/researchers/{w.author.pk}/feed.atom",
        w.institution.get_absolute_url(),
        w.venue.get_absolute_url(),
        w.topic.get_absolute_url(),
        reverse("graph:explorer", args=[w.author.pk]),
        reverse("graph:work-explorer", args=[w.work.pk]),
        "/search/?q=collaboration",
        "/",
        f"{api_work}/",
        "/api/v1/works/?sort=cited&page_size=100",
        f"{api_work}/references/?page_size=100",
        f"{api_work}/cited-by/?page_size=100",
        f"{api_work}/authorships/?page_size=100&page=30",
        f"/api/v1/authors/{w.author.pk}/",
        f"/api/v1/authors/{w.author.pk}/works/?page_size=100",
        f"/api/v1/authors/{w.author.pk}/graph/",
        f"/api/v1/authors/{w.author.pk}/trust/",
        f"/api/v1/institutions/{w.institution.pk}/",
        f"/api/v1/topics/{w.topic.pk}/",
    ]


def test_every_public_page_and_api_read_of_the_records_answers_quickly(
    world, client, django_assert_max_num_queries
):
    for url in _public_urls(world):
        bounded(client, django_assert_max_num_queries, url)


def _names(html: str) -> list[int]:
    byline = re.search(r'<ol class="byline".*?</ol>', html, re.DOTALL).group(0)
    return [int(n) for n in re.findall(r"Member (\d+)", byline)]


def test_the_work_page_shows_the_first_of_each_long_list_and_counts_the_rest(world, client):
    html = client.get(world.work.get_absolute_url()).content.decode()
    assert _names(html) == [*range(BYLINES_SHOWN), SIZE - 1]
    assert f"Show all {SIZE} authors" in html
    funders = Work.objects.filter(pk=world.work.pk).values("grants__funder").distinct().count()
    assert f"and {funders - FUNDERS_SHOWN} more funders" in html
    assert f"and {MANY - TOPICS_SHOWN} more topics" in html


def test_the_whole_byline_is_read_a_page_at_a_time(world, client):
    url = world.work.get_absolute_url()
    second = client.get(f"{url}?authors=all&authors_page=2").content.decode()
    assert _names(second) == list(range(BYLINE_PAGE, 2 * BYLINE_PAGE))
    assert f"Authors {BYLINE_PAGE + 1}–{2 * BYLINE_PAGE} of {SIZE}." in second
    assert "authors_page=1#" in second and "authors_page=3#" in second
    past_the_end = client.get(f"{url}?authors=all&authors_page=99").content.decode()
    assert _names(past_the_end) == list(range(SIZE - BYLINE_PAGE, SIZE))


def test_a_work_exports_its_whole_byline(world, client):
    ris = client.get(f"/works/{world.work.pk}/export.ris").content.decode()
    assert len(re.findall(r"^AU  - ", ris, re.MULTILINE)) == SIZE


def test_the_api_gives_the_first_of_each_long_list_with_its_count(world, client):
    work = client.get(f"/api/v1/works/{world.work.pk}/").json()
    assert work["authors_count"] == SIZE and len(work["authorships"]) == FIRST_ROWS
    assert work["grants_count"] == SIZE and len(work["grants"]) == FIRST_ROWS
    assert work["topics_count"] == MANY and len(work["topics"]) == FIRST_ROWS
    last = client.get(f"/api/v1/works/{world.work.pk}/authorships/?page_size=100&page=30")
    assert [a["position"] for a in last.json()["results"]] == list(range(SIZE - 100, SIZE))


# Names no record holds, in a long byline -------------------------------------------


def _mixed_byline():
    """A byline of BYLINES_SHOWN + 20 names, three of them held by no record."""
    total, free = BYLINES_SHOWN + 20, {5, BYLINES_SHOWN + 10, BYLINES_SHOWN + 19}
    work = WorkFactory(title="Names held and not held")
    authors = {p: AuthorFactory(display_name=f"Member {p}") for p in range(total) if p not in free}
    Authorship.objects.bulk_create(
        Authorship(work=work, author=a, position=p, source="openalex") for p, a in authors.items()
    )
    UnlinkedAuthorship.objects.bulk_create(
        [
            UnlinkedAuthorship(work=work, position=p, raw_name=f"Nobody {p}", source="arxiv")
            for p in sorted(free)
        ]
        + [
            UnlinkedAuthorship(work=work, position=5, raw_name="Twice 5", source="openalex"),
            UnlinkedAuthorship(work=work, position=7, raw_name="Taken 7", source="arxiv"),
        ]
    )
    return work, total


def _positions(html: str) -> list[int]:
    byline = re.search(r'<ol class="byline".*?</ol>', html, re.DOTALL).group(0)
    assert "Twice" not in byline and "Taken" not in byline
    return [int(n) for n in re.findall(r"(?:Member|Nobody) (\d+)", byline)]


def test_names_no_record_holds_keep_their_place_in_a_long_byline(client):
    work, total = _mixed_byline()
    html = client.get(work.get_absolute_url()).content.decode()
    assert _positions(html) == [*range(BYLINES_SHOWN), total - 1]
    assert f"Show all {total} authors" in html
    whole = client.get(f"{work.get_absolute_url()}?authors=all").content.decode()
    assert _positions(whole) == list(range(total))


def test_a_list_reads_the_first_names_of_a_long_byline_and_counts_them_all():
    work, total = _mixed_byline()
    listed = works_with_authors(Work.objects.filter(pk=work.pk)).get()
    shown = listed.byline()[:LISTED]
    assert [entry.position for entry in shown] == list(range(LISTED))
    assert shown[5].raw_name == "Nobody 5" and listed.byline_length == total
