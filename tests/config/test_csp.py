"""The Content-Security-Policy is strict on every main page, and our HTML needs nothing more.

The header must allow script and style from our origin only (no 'unsafe-inline',
no 'unsafe-eval'), so the pages themselves must carry no inline script, no
<style> block, no style= attribute and no on...= handler: any of them would be
refused by the browser, and adding 'unsafe-inline' back to make them work
would fail the header test.
"""

from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from catalogue.models import Topic, WorkTopic
from tests.factories import AuthorshipFactory, InstitutionFactory, VenueFactory
from tests.people import signed_in

pytestmark = pytest.mark.django_db

CSP = "Content-Security-Policy"
SCRIPT_SCHEMES = ("javascript:", "vbscript:", "data:")
REQUIRED = {
    "default-src": {"'self'"},
    "script-src": {"'self'"},
    "style-src": {"'self'"},
    "img-src": {"'self'"},
    "object-src": {"'none'"},
    "base-uri": {"'self'"},
    "frame-ancestors": {"'none'"},
}


def directives(header: str) -> dict[str, set[str]]:
    policy = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            policy[words[0]] = set(words[1:])
    return policy


class InlineCode(HTMLParser):
    """Collects what a strict policy would refuse: inline script, style blocks and attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self._open_script = None
        self._script_text = ""

    def handle_starttag(self, tag, attrs):
        names = dict(attrs)
        if tag == "script":
            self._open_script = names
            self._script_text = ""
        if tag == "style":
            self.problems.append("<style> block")
        for name, value in attrs:
            if name == "style":
                self.problems.append(f'style="{value}" on <{tag}>')
            if name.startswith("on"):
                self.problems.append(f'{name}="{value}" on <{tag}>')
            script_url = (value or "").strip().lower().startswith(SCRIPT_SCHEMES)
            if name in {"href", "src", "action", "formaction"} and script_url:
                self.problems.append(f'{name}="{value}" on <{tag}>')

    def handle_data(self, data):
        if self._open_script is not None:
            self._script_text += data

    def handle_endtag(self, tag):
        if tag == "script" and self._open_script is not None:
            kind = (self._open_script.get("type") or "").lower()
            is_data = kind in {"application/json", "application/ld+json"}
            if not self._open_script.get("src") and not is_data and self._script_text.strip():
                self.problems.append(f"inline <script>: {self._script_text.strip()[:60]!r}")
            self._open_script = None


def inline_code(html: str) -> list[str]:
    parser = InlineCode()
    parser.feed(html)
    parser.close()
    return parser.problems


@pytest.fixture
def record():
    lab = InstitutionFactory(name="Example Institute")
    authorship = AuthorshipFactory(
        author__display_name="Ada Example",
        author__last_known_institution=lab,
        work__title="On examples",
        work__venue=VenueFactory(name="Journal of Examples"),
    )
    topic = Topic.objects.create(key="openalex:T1", name="Examples", kind=Topic.Kind.TOPIC)
    WorkTopic.objects.create(work=authorship.work, topic=topic, source="openalex")
    return authorship.author, authorship.work


def main_pages(author, work, *, member, staff) -> list[tuple[str, Client, str]]:
    """The main pages: each name, the client that asks (anonymous, ``member`` or ``staff``), URL."""
    anonymous, member, staff = Client(), signed_in(member), signed_in(staff)
    return [
        ("home", anonymous, "/"),
        ("researcher", anonymous, author.get_absolute_url()),
        ("work", anonymous, work.get_absolute_url()),
        ("search", anonymous, f"{reverse('publications:search')}?q=example"),
        ("graph", anonymous, reverse("graph:explorer", args=[author.pk])),
        ("paper graph", anonymous, reverse("graph:work-explorer", args=[work.pk])),
        ("institution", anonymous, author.last_known_institution.get_absolute_url()),
        ("venue", anonymous, work.venue.get_absolute_url()),
        ("topic", anonymous, work.topics.get().get_absolute_url()),
        ("status", anonymous, reverse("status")),
        ("trust", anonymous, reverse("trust:explain")),
        ("sign-in", anonymous, reverse("account_login")),
        ("sign-up", anonymous, reverse("account_signup")),
        ("password reset", anonymous, reverse("account_reset_password")),
        ("not found", anonymous, "/no/such/page/"),
        ("admin login", anonymous, "/admin/login/"),
        ("claim", member, reverse("profiles:claim", args=[author.pk])),
        ("following", member, reverse("profiles:following")),
        ("inbox", member, reverse("profiles:inbox")),
        ("account", member, reverse("account_email")),
        ("admin", staff, reverse("admin:index")),
        ("admin import", staff, reverse("admin:publications_importrun_new_import")),
        ("admin imports", staff, reverse("admin:publications_importrun_changelist")),
        (
            "admin author",
            staff,
            reverse("admin:publications_author_change", args=[author.pk]),
        ),
    ]


def fetch(client: Client, url: str):
    response = client.get(url, follow=False)
    expected = 404 if url == "/no/such/page/" else 200
    assert response.status_code == expected, (url, response.status_code)
    return response


def test_every_main_page_sends_the_strict_policy(record, stranger, staff):
    for name, client, url in main_pages(*record, member=stranger, staff=staff):
        header = fetch(client, url).get(CSP)
        assert header, f"{name} ({url}) has no {CSP} header"
        assert "unsafe-inline" not in header, name
        assert "unsafe-eval" not in header, name
        assert "unsafe-hashes" not in header, name
        policy = directives(header)
        for directive, sources in REQUIRED.items():
            assert policy.get(directive) == sources, (name, directive, policy.get(directive))
        assert "'self'" in policy["form-action"]
        assert all(s == "'self'" or s.startswith("https://") for s in policy["form-action"])


def test_no_main_page_carries_inline_script_or_style(record, stranger, staff):
    for name, client, url in main_pages(*record, member=stranger, staff=staff):
        html = fetch(client, url).content.decode()
        assert inline_code(html) == [], f"{name} ({url})"


def test_the_checker_finds_what_the_policy_would_refuse():
    assert inline_code('<p style="color:red">x</p>')
    assert inline_code("<script>alert(1)</script>")
    assert inline_code("<style>p{}</style>")
    assert inline_code('<a href="#" onclick="x()">x</a>')
    assert inline_code('<a href=" JavaScript:alert(1)">x</a>')
    assert not inline_code('<script src="/static/x.js"></script><p class="a">ok</p>')


def test_orcid_sign_in_may_leave_for_orcid():
    from django.conf import settings

    header = Client().get(reverse("account_login"))[CSP]
    assert f"https://{settings.ORCID_BASE_DOMAIN}" in directives(header)["form-action"]


def test_htmx_is_told_not_to_inject_styles_or_eval(record):
    author, _ = record
    html = Client().get(author.get_absolute_url()).content.decode()
    assert "htmx" in html  # the researcher page swaps parts in place
    assert 'name="htmx-config"' in html
    assert '"includeIndicatorStyles": false' in html
    assert '"allowEval": false' in html


def test_api_docs_keep_the_script_policy_and_load_their_script_from_a_url():
    response = Client().get(reverse("api-docs"))
    assert response.status_code == 200
    policy = directives(response[CSP])
    assert policy["script-src"] == {"'self'"}
    assert policy["style-src"] == {"'self'"}
    assert "unsafe" not in response[CSP]
    html = response.content.decode()
    assert inline_code(html) == []
    assert '<script src="/api/docs/?script="></script>' in html
    script = Client().get(reverse("api-docs") + "?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode()


def test_the_static_files_the_pages_need_exist():
    from django.contrib.staticfiles import finders

    for path in ("js/admin-new-import.js", "css/api-docs.css", "css/site.css"):
        assert finders.find(path), path
