"""The owner of a claimed record edits it; "not mine" and added works survive later imports."""

import json

import pytest
import responses
from django.test import Client
from django.urls import reverse
from responses import matchers

from catalogue.models import AuditEvent, Author, Authorship, ImportRun, LinkConstraint, Work
from ingestion.importing.dispatch import import_run_create
from ingestion.importing.execution import import_run_execute
from ingestion.sources.arxiv import fetching as arxiv_source
from ingestion.sources.openalex import fetching as openalex_source
from profiles.claims import ownership
from profiles.claims.services import ClaimError
from profiles.models import Profile
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory
from tests.people import holds, person

pytestmark = pytest.mark.django_db

API = "https://api.openalex.org"
ARXIV = "https://export.arxiv.org/api/query"
OWNER_OA = "A5000000001"


def work_payload(openalex_id: str, doi: str, title: str, authors, cited: int = 1) -> dict:
    """An OpenAlex Work as the API gives it, cut down to what these tests need."""
    return {
        "id": f"https://openalex.org/{openalex_id}",
        "doi": f"https://doi.org/{doi}",
        "title": title,
        "display_name": title,
        "publication_year": 2020,
        "publication_date": "2020-05-01",
        "type": "article",
        "cited_by_count": cited,
        "authorships": [
            {
                "author_position": "first" if n == 0 else "middle",
                "author": {
                    "id": f"https://openalex.org/{aid}",
                    "display_name": name,
                    "orcid": None,
                },
                "institutions": [],
                "is_corresponding": False,
                "raw_author_name": name,
                "raw_affiliation_strings": [],
            }
            for n, (aid, name) in enumerate(authors)
        ],
    }


def list_page(*works) -> dict:
    return {
        "meta": {"count": len(works), "per_page": 200, "next_cursor": None},
        "results": list(works),
    }


def import_file(tmp_path, name: str, *works) -> ImportRun:
    path = tmp_path / name
    path.write_text(json.dumps(list_page(*works)))
    run = import_run_create(
        source="openalex", kind="file", parameters={"paths": [str(path)]}, queue=False
    )
    run = import_run_execute(run_id=run.pk)
    assert run.status == "succeeded", run.error
    return run


@pytest.fixture
def record(tmp_path):
    """An author imported from OpenAlex with two works, one of them not theirs."""
    import_file(
        tmp_path,
        "first.json",
        work_payload("W1", "10.5555/mine", "A paper that is mine", [(OWNER_OA, "Ada Lovelace")]),
        work_payload(
            "W2",
            "10.5555/namesake",
            "A namesake's paper",
            [("A5000000009", "Charles Babbage"), (OWNER_OA, "Ada Lovelace")],
        ),
    )
    return Work.objects.get(openalex_id="W1").authors.get()


@pytest.fixture
def owner(record):
    user = person("ada", email="ada.private@example.net")
    holds(user, record)
    return user


def profile_of(user) -> Profile:
    return Profile.objects.select_related("author").get(user=user)


def linked(author, work) -> bool:
    return Authorship.objects.filter(author=author, work=work).exists()


# The profile ------------------------------------------------------------------------------------


def test_the_owner_edits_tagline_homepage_and_openness(owner, client):
    client.force_login(owner)
    url = reverse("profiles:profile_edit", args=[profile_of(owner).author_id])
    data = {
        "tagline": "Poetical science",
        "homepage": "https://ada.example.org/",
        "open_to_collaborate": "on",
    }
    response = client.post(url, data)
    assert response.status_code == 302
    profile = profile_of(owner)
    assert (profile.tagline, profile.homepage, profile.open_to_collaborate) == (
        "Poetical science",
        "https://ada.example.org/",
        True,
    )
    event = AuditEvent.objects.get(action="profile_update")
    assert event.actor == owner and event.data["tagline"] == ["", "Poetical science"]


def test_a_bad_homepage_is_explained_and_nothing_is_lost(owner, client):
    client.force_login(owner)
    url = reverse("profiles:profile_edit", args=[profile_of(owner).author_id])
    response = client.post(url, {"tagline": "Kept", "homepage": "not a url"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Enter a valid URL." in page and 'value="Kept"' in page
    assert profile_of(owner).tagline == ""


def test_up_to_five_works_are_pinned(owner):
    profile = profile_of(owner)
    works = [AuthorshipFactory(author=profile.author).work for _ in range(6)]
    for work in works[:5]:
        ownership.work_pin(profile=profile, work=work, actor=owner)
    with pytest.raises(ClaimError, match="at most 5"):
        ownership.work_pin(profile=profile, work=works[5], actor=owner)
    ownership.work_unpin(profile=profile, work=works[0], actor=owner)
    ownership.work_pin(profile=profile, work=works[5], actor=owner)
    assert profile.pinned_works.count() == 5


def test_only_the_owners_works_can_be_pinned(owner):
    with pytest.raises(ClaimError, match="not on your record"):
        ownership.work_pin(profile=profile_of(owner), work=WorkFactory(), actor=owner)


# "Not mine" ------------------------------------------------------------------------------------


def test_not_mine_removes_the_work_and_a_later_import_keeps_it_off(tmp_path, record, owner, client):
    namesake = Work.objects.get(openalex_id="W2")
    profile = profile_of(owner)
    ownership.work_pin(profile=profile, work=namesake, actor=owner)
    client.force_login(owner)
    url = reverse("profiles:work_disown", args=[record.pk, namesake.pk])
    response = client.post(url, {"reason": "Another Ada Lovelace"})
    assert response.status_code == 302
    assert not linked(record, namesake)
    assert not profile.pinned_works.exists()
    constraint = LinkConstraint.objects.get(author=record, work=namesake)
    assert (constraint.kind, constraint.source, constraint.created_by) == (
        "cannot_link",
        "claim",
        owner,
    )
    assert AuditEvent.objects.filter(action="work_disown", actor=owner).exists()

    # OpenAlex still lists the owner on that paper (with a new citation count, so it is re-read).
    run = import_file(
        tmp_path,
        "again.json",
        work_payload(
            "W2",
            "10.5555/namesake",
            "A namesake's paper",
            [("A5000000009", "Charles Babbage"), (OWNER_OA, "Ada Lovelace")],
            cited=7,
        ),
    )
    assert run.counters["updated"] == 1
    namesake.refresh_from_db()
    assert namesake.cited_by_count == 7
    assert not linked(record, namesake)  # the decision held
    # The position stays unlinked with its printed name: no new "Ada Lovelace" record.
    assert namesake.authorships.count() == 1
    assert list(namesake.unlinked_authorships.values_list("position", "raw_name")) == [
        (1, "Ada Lovelace")
    ]
    assert Author.objects.filter(display_name="Ada Lovelace").count() == 1


# Adding a missing work --------------------------------------------------------------------------


def test_a_known_work_is_linked_at_once(record, owner):
    other = WorkFactory(doi="10.5555/known", title="A known paper")
    added = ownership.work_add(
        profile=profile_of(owner), identifier="https://doi.org/10.5555/KNOWN", actor=owner
    )
    assert added.work == other and added.run is None
    authorship = Authorship.objects.get(author=record, work=other)
    assert authorship.source == "claim"
    assert LinkConstraint.objects.get(author=record, work=other).kind == "must_link"


def test_a_missing_doi_is_imported_then_linked_and_stays_linked(
    tmp_path, record, owner, client, django_capture_on_commit_callbacks
):
    doi = "10.5555/added"
    payload = work_payload(
        "W3",
        doi,
        "A paper OpenAlex credits to someone else",
        [
            ("A5000000007", "Someone Else"),
        ],
    )
    client.force_login(owner)
    url = reverse("profiles:work_add", args=[record.pk])
    with responses.RequestsMock() as mock:
        mock.get(
            f"{API}/works",
            json=list_page(payload),
            match=[
                matchers.query_param_matcher(
                    {"filter": f"doi:https://doi.org/{doi}"}, strict_match=False
                )
            ],
        )
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(url, {"identifier": f"doi:{doi}"}, follow=True)
    assert "is added to your record once imported" in response.content.decode()
    work = Work.objects.get(doi=doi)
    run = ImportRun.objects.get(kind="dois")
    assert run.status == "succeeded" and run.requested_by == owner
    assert linked(record, work)
    assert LinkConstraint.objects.get(author=record, work=work).kind == "must_link"
    page = client.get(reverse("profiles:profile_edit", args=[record.pk])).content.decode()
    assert "Added</span>" in page and "A paper OpenAlex credits to someone else" in page

    # A later import of the same work, still without the owner, does not drop the link.
    import_file(tmp_path, "again.json", {**payload, "cited_by_count": 12})
    work.refresh_from_db()
    assert work.cited_by_count == 12
    assert linked(record, work)
    assert set(work.authors.values_list("display_name", flat=True)) == {
        "Someone Else",
        "Ada Lovelace",
    }


def test_an_arxiv_id_is_imported_from_arxiv(
    real_fixtures, record, owner, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(arxiv_source, "DELAY_SECONDS", 0.0)
    monkeypatch.setattr(arxiv_source, "NUM_RETRIES", 0)
    feed = (real_fixtures / "arxiv" / "query__id_list-1605.08386__2026-04.atom.xml").read_bytes()
    with responses.RequestsMock() as mock:
        mock.get(
            ARXIV,
            body=feed,
            match=[matchers.query_param_matcher({"id_list": "1605.08386"}, strict_match=False)],
        )
        with django_capture_on_commit_callbacks(execute=True):
            added = ownership.work_add(
                profile=profile_of(owner), identifier="arXiv:1605.08386v2", actor=owner
            )
    assert added.run.source == "arxiv" and added.run.parameters == {"ids": ["1605.08386"]}
    work = Work.objects.get(arxiv_id="1605.08386")
    assert linked(record, work)


def test_a_doi_no_source_knows_is_reported(
    record, owner, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(openalex_source, "RETRY_BACKOFF", 0)
    with responses.RequestsMock() as mock:
        mock.get(f"{API}/works", json=list_page())
        with django_capture_on_commit_callbacks(execute=True):
            ownership.work_add(profile=profile_of(owner), identifier="10.5555/nowhere", actor=owner)
    (status,) = ownership.work_additions(author=record)
    assert status.state == "not_found" and str(status.key) == "doi:10.5555/nowhere"
    assert not LinkConstraint.objects.filter(author=record, kind="must_link").exists()


def test_a_bad_identifier_is_explained_and_kept(record, owner, client):
    client.force_login(owner)
    response = client.post(reverse("profiles:work_add", args=[record.pk]), {"identifier": "hello"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Not a DOI" in page and 'value="hello"' in page
    assert not ImportRun.objects.filter(kind="dois").exists()


# Who may do what: tests/permissions/ holds the table for every action.


def test_anonymous_visitors_are_sent_to_sign_in(record, client):
    response = client.get(reverse("profiles:profile_edit", args=[record.pk]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_owner_forms_need_the_csrf_token(record, owner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    namesake = Work.objects.get(openalex_id="W2")
    url = reverse("profiles:work_disown", args=[record.pk, namesake.pk])
    assert client.post(url).status_code == 403
    assert linked(record, namesake)
    page = client.get(reverse("profiles:profile_edit", args=[record.pk])).content.decode()
    assert page.count('name="csrfmiddlewaretoken"') >= 5


def test_the_edit_page_shows_no_private_email(record, owner, client):
    client.force_login(owner)
    page = client.get(reverse("profiles:profile_edit", args=[record.pk])).content.decode()
    assert "ada.private@example.net" not in page
    assert "A paper that is mine" in page and "Not mine" in page


def test_a_record_without_an_owner_cannot_be_edited(client):
    client.force_login(person("x"))
    author = AuthorFactory()
    assert client.get(reverse("profiles:profile_edit", args=[author.pk])).status_code == 403


def test_a_work_removed_by_mistake_is_put_back(record, owner, client):
    namesake = Work.objects.get(openalex_id="W2")
    profile = profile_of(owner)
    ownership.work_disown(profile=profile, work=namesake, actor=owner)
    client.force_login(owner)
    edit = reverse("profiles:profile_edit", args=[record.pk])
    assert "Removed from your record" in client.get(edit).content.decode()
    client.post(reverse("profiles:work_restore", args=[record.pk, namesake.pk]))
    assert linked(record, namesake)
    assert LinkConstraint.objects.get(author=record, work=namesake).kind == "must_link"
    assert "Removed from your record" not in client.get(edit).content.decode()
    with pytest.raises(ClaimError, match="was not removed"):
        ownership.work_restore(profile=profile, work=namesake, actor=owner)
