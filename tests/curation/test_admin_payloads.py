"""Admin pages show stored payloads whatever they hold, lone surrogates included."""

import json

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from catalogue.models import ImportProblem, SourceRecord
from curation.admin.display import pretty_json

pytestmark = pytest.mark.django_db

PAYLOAD = {"id": "https://openalex.org/W990007", "title": "lone \ud800 surrogate \udfff end"}


def admin(name: str, *args) -> str:
    return reverse(f"admin:publications_{name}", args=args)


@pytest.fixture
def record():
    return SourceRecord.objects.create(
        source="openalex",
        external_id="https://openalex.org/W990007",
        payload=PAYLOAD,
        content_hash="0" * 64,
        fetched_at=timezone.now(),
    )


def test_a_source_record_holding_a_lone_surrogate_shows_it_escaped(staff_client, record):
    assert SourceRecord.objects.get(pk=record.pk).payload == PAYLOAD  # stored as it came
    response = staff_client.get(admin("sourcerecord_change", record.pk))
    assert response.status_code == 200
    page = response.content.decode()
    assert "lone \\ud800 surrogate \\udfff end" in page
    assert staff_client.get(admin("sourcerecord_changelist")).status_code == 200


def test_the_escaped_payload_reads_back_as_it_was_stored(staff_client, record):
    form = staff_client.get(admin("sourcerecord_change", record.pk)).context["adminform"].form
    shown = form["payload"].value()  # the text the form shows
    assert "\\ud800" in shown
    assert json.loads(shown) == PAYLOAD
    assert not form["payload"].field.has_changed(PAYLOAD, shown)  # a save changes nothing


def test_a_problem_holding_a_lone_surrogate_shows_it_escaped(staff_client):
    if connection.vendor == "postgresql":
        pytest.skip("jsonb refuses a lone surrogate: PostgreSQL keeps such a problem as text")
    problem = ImportProblem.objects.create(
        source="openalex",
        external_id="https://openalex.org/W990007",
        payload=PAYLOAD,
        error="a problem",
    )
    response = staff_client.get(admin("importproblem_change", problem.pk))
    assert response.status_code == 200
    assert "lone \\ud800 surrogate \\udfff end" in response.content.decode()


def test_the_json_display_escapes_a_lone_surrogate():
    shown = pretty_json(PAYLOAD)
    assert "lone \\ud800 surrogate \\udfff end" in shown
    shown.encode("utf-8")  # a page can hold it
