"""Plain admin edits are audited, and audit actions share one naming style."""

import importlib
import re
from datetime import date
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib import admin
from django.forms.models import model_to_dict
from django.urls import reverse

import curation
from catalogue.metrics import author_metrics_refresh
from catalogue.models import AuditEvent, AuthorMetrics, Institution, Work
from curation import undo
from curation.admin.audit import AuditedModelAdmin, record_name
from tests.factories import AuthorshipFactory, InstitutionFactory, UserFactory, WorkFactory

INLINE_FIELDS = [
    "position",
    "author",
    "work",
    "raw_name",
    "raw_affiliation",
    "source",
    "confidence",
]

pytestmark = pytest.mark.django_db

OUR_APPS = {"publications", "profiles", "graph", "trust"}
ACTION_NAME = re.compile(r"^[a-z]+(_[a-z]+)+$")


@pytest.fixture
def staff(client):
    user = UserFactory(username="curator", is_staff=True, is_superuser=True)
    client.force_login(user)
    return user


def change_form_data(obj) -> dict:
    """What the admin change form posts back for ``obj`` unchanged (blank for None)."""
    model_admin = admin.site._registry[type(obj)]
    request = type("R", (), {"user": UserFactory.build(is_superuser=True)})()
    names = model_admin.get_form(request, obj).base_fields
    values = model_to_dict(obj, fields=list(names))
    return {k: ("" if v is None else v) for k, v in values.items()}


def test_changing_an_institutions_domain_writes_who_changed_what(client, staff):
    place = InstitutionFactory(homepage_domain="old.example.edu")
    url = reverse("admin:publications_institution_change", args=[place.pk])
    data = {**change_form_data(place), "homepage_domain": "new.example.edu"}
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    event = AuditEvent.objects.get(action="institution_change")
    assert (event.actor, event.target_type, event.target_id) == (
        staff,
        "publications.institution",
        str(place.pk),
    )
    assert event.data["via"] == "admin"
    assert event.data["changed"] == {
        "homepage_domain": {"from": "old.example.edu", "to": "new.example.edu"}
    }


def test_setting_an_embargo_date_is_audited_with_before_and_after(client, staff):
    work = WorkFactory()
    url = reverse("admin:publications_work_change", args=[work.pk])
    prefix = "authorships"
    data = {
        **change_form_data(work),
        "embargo_until": "2031-05-01",
        f"{prefix}-TOTAL_FORMS": "0",
        f"{prefix}-INITIAL_FORMS": "0",
    }
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert Work.objects.get(pk=work.pk).embargo_until == date(2031, 5, 1)
    event = AuditEvent.objects.get(action="work_change")
    assert event.data["changed"]["embargo_until"] == {"from": None, "to": "2031-05-01"}


def test_saving_without_a_change_writes_nothing(client, staff):
    place = InstitutionFactory()
    url = reverse("admin:publications_institution_change", args=[place.pk])
    assert client.post(url, change_form_data(place)).status_code == 302
    assert not AuditEvent.objects.exists()


def test_adding_and_deleting_keep_the_whole_row(client, staff):
    response = client.post(
        reverse("admin:publications_institution_add"),
        {"name": "Institut Curie", "homepage_domain": "curie.fr", "type": "", "country_code": ""},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    place = Institution.objects.get(name="Institut Curie")
    added = AuditEvent.objects.get(action="institution_add")
    assert added.data["row"]["homepage_domain"] == "curie.fr"

    url = reverse("admin:publications_institution_delete", args=[place.pk])
    assert client.post(url, {"post": "yes"}).status_code == 302
    assert not Institution.objects.filter(pk=place.pk).exists()
    gone = AuditEvent.objects.get(action="institution_delete")
    assert (gone.target_id, gone.data["row"]["name"]) == (str(place.pk), "Institut Curie")


def test_a_bulk_delete_writes_one_event_per_row(client, staff):
    places = InstitutionFactory.create_batch(3)
    response = client.post(
        reverse("admin:publications_institution_changelist"),
        {"action": "delete_selected", "_selected_action": [p.pk for p in places], "post": "yes"},
    )
    assert response.status_code == 302
    events = AuditEvent.objects.filter(action="institution_delete")
    assert sorted(e.target_id for e in events) == sorted(str(p.pk) for p in places)


def test_every_admin_of_ours_is_audited():
    ours = [
        (model, model_admin)
        for model, model_admin in admin.site._registry.items()
        if model._meta.app_label in OUR_APPS
    ]
    assert len(ours) > 20
    for model, model_admin in ours:
        assert isinstance(model_admin, AuditedModelAdmin), model.__name__


def test_record_names_are_snake_case_model_names():
    assert record_name(Institution) == "institution"
    assert record_name(apps.get_model("publications", "ImportRun")) == "import_run"
    assert record_name(apps.get_model("publications", "MergeCandidate")) == "merge_candidate"


def test_every_action_name_in_the_code_has_one_form():
    """``<record>_<verb>``: no dotted names, no bare verbs."""
    sources = []
    for app in OUR_APPS:
        for path in Path(apps.get_app_config(app).path).rglob("*.py"):
            if not {"migrations", "management"} & set(path.parts):  # argparse has actions too
                sources.append(path.read_text())
    found = set()
    for text in sources:
        found |= set(re.findall(r'action="([^"]+)"', text))
        found |= set(re.findall(r'^[A-Z_]+ = "([a-z_.]+)"$', text, re.M)) & {curation.UNDO}
    found |= set(undo.UNDOERS) | {curation.UNDO}
    assert found, "no action names found"
    bad = sorted(name for name in found if not ACTION_NAME.match(name))
    assert not bad, bad


def test_old_rows_are_renamed_to_the_one_form():
    migration = importlib.import_module("catalogue.migrations.0019_audit_action_names")
    staff = UserFactory()
    merged = AuditEvent.objects.create(
        actor=staff, action="author.merge", target_type="publications.author", target_id="1"
    )
    undo = AuditEvent.objects.create(
        actor=staff,
        action="undo",
        target_type="publications.auditevent",
        target_id=str(merged.pk),
        data={"undoes": merged.pk, "action": "author.merge"},
    )
    kept = AuditEvent.objects.create(
        actor=staff, action="claim_approve", target_type="profiles.claim", target_id="1"
    )
    migration.rename(migration.RENAMED)(apps, None)
    merged.refresh_from_db(), undo.refresh_from_db(), kept.refresh_from_db()
    assert (merged.action, undo.action, kept.action) == (
        "author_merge",
        "audit_event_undo",
        "claim_approve",
    )
    assert undo.data["action"] == "author_merge"
    assert curation.audit_is_undoable(merged)
    back = {new: old for old, new in migration.RENAMED.items()}
    migration.rename(back)(apps, None)
    merged.refresh_from_db(), undo.refresh_from_db()
    assert (merged.action, undo.action, undo.data["action"]) == (
        "author.merge",
        "undo",
        "author.merge",
    )


def test_a_work_edited_by_staff_renews_its_authors_figures(
    client, staff, django_capture_on_commit_callbacks
):
    work = WorkFactory(arxiv_primary_category="", publication_year=2020)
    author = AuthorshipFactory(work=work).author
    author_metrics_refresh(author_ids=[author.pk])
    assert AuthorMetrics.objects.get(author=author).primary_category == ""
    prefix = "authorships"
    authorship = work.authorships.get()
    data = {
        **change_form_data(work),
        "arxiv_primary_category": "cs.DC",
        f"{prefix}-TOTAL_FORMS": "1",
        f"{prefix}-INITIAL_FORMS": "1",
        f"{prefix}-0-id": str(authorship.pk),
        **{
            f"{prefix}-0-{name}": "" if value is None else str(value)
            for name, value in model_to_dict(authorship, fields=INLINE_FIELDS).items()
        },
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("admin:publications_work_change", args=[work.pk]), data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert AuthorMetrics.objects.get(author=author).primary_category == "cs.DC"
