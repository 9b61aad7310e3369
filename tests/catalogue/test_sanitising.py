"""Imported titles and abstracts never run: scripts, handlers and javascript: links go."""

import json
import re
from html.parser import HTMLParser

import pytest
from django.template import Context, Template
from hypothesis import given, settings
from hypothesis import strategies as st

from catalogue import safe_html
from tests.factories import AuthorFactory, AuthorshipFactory, WorkFactory

HOSTILE_TITLE = 'Evil <script>window.__xss=1</script><img src=x onerror="window.__xss=2"> title'
HOSTILE_ABSTRACT = (
    '<p onclick="window.__xss=3">Click <a href="javascript:window.__xss=4">here</a></p>'
    "<svg/onload=window.__xss=5><iframe src=javascript:alert(1)></iframe>"
    '<details open ontoggle="window.__xss=6">x</details>'
    "<<script>script>window.__xss=7<</script>/script>"
    "<a href='JaVaScRiPt:alert(1)'>caps</a> <a href=\"&#106;avascript:alert(1)\">entity</a>"
    "<style>body{display:none}</style><math><mi>x</mi></math> keeps $a<b$ and $c>d$."
)


class Elements(HTMLParser):
    """Every start tag with its attributes, as a browser would read them."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def elements(html: str) -> list[tuple[str, dict]]:
    parser = Elements()
    parser.feed(html)
    parser.close()
    return parser.tags


def assert_inert(html: str, *, allowed=safe_html.INLINE_TAGS | safe_html.BLOCK_TAGS | {"a"}):
    for tag, attrs in elements(html):
        assert tag in allowed, f"<{tag}> survived in {html!r}"
        for name, value in attrs.items():
            assert not name.startswith("on"), f"handler {name} survived in {html!r}"
            if tag == "a":
                assert name in {"href", "rel"}
                if name == "href":
                    assert re.match(r"https?://", value or ""), f"link {value!r} survived"
            else:
                pytest.fail(f"attribute {name} on <{tag}> survived in {html!r}")


def test_scripts_handlers_and_script_links_are_removed_from_an_abstract():
    html = safe_html.abstract_html(HOSTILE_ABSTRACT)
    assert_inert(html)
    assert "__xss" not in html
    assert "javascript" not in html.lower()
    assert "display:none" not in html
    assert "Click here" in html
    assert "keeps $a&lt;b$ and $c&gt;d$." in html


def test_the_words_around_hostile_markup_survive():
    html = safe_html.abstract_html(
        '<p onclick="go()">Click <a href="javascript:go()">here</a>, '
        "<a href='JaVaScRiPt:go()'>caps</a>, <a href=\"&#106;avascript:go()\">entity</a>,"
        "<script>go()</script> <img src=x onerror=go()>and <i>italics</i>.</p>"
    )
    assert html == "<p>Click here, caps, entity, and <i>italics</i>.</p>"


def test_a_title_keeps_its_words_and_loses_its_markup():
    html = safe_html.title_html(HOSTILE_TITLE)
    assert_inert(html, allowed=safe_html.INLINE_TAGS)
    assert html == "Evil  title"
    assert (
        safe_html.title_html("H<sub>2</sub>O in <i>vitro</i>") == "H<sub>2</sub>O in <i>vitro</i>"
    )
    assert safe_html.title_html("a < b > c") == "a &lt; b &gt; c"


def test_plain_text_is_escaped_with_paragraphs_and_only_web_links():
    html = safe_html.abstract_html(
        "First <b paragraph & more.\n\nSee https://example.org/x?a=1&b=2 or javascript:alert(1)."
    )
    assert html.startswith("<p>First &lt;b paragraph &amp; more.</p>")
    assert '<a href="https://example.org/x?a=1&amp;b=2" rel="nofollow">' in html
    assert "javascript:alert(1)" in html  # words, not a link
    assert_inert(html)


def test_latex_stays_readable():
    text = r"We show $O(n \log n)$ bounds with $\alpha_1 < 2^{k}$ and \emph{tight} constants."
    html = safe_html.abstract_html(text)
    assert html == (
        r"<p>We show $O(n \log n)$ bounds with $\alpha_1 &lt; 2^{k}$ and \emph{tight} "
        "constants.</p>"
    )


def test_filters_escape_in_templates():
    template = Template(
        "{% load text_tags %}<h1>{{ t|safe_title }}</h1><div>{{ a|safe_abstract }}</div>"
        "<title>{{ t|plain }}</title><p>{{ a|abstract_preview:3 }}</p>"
    )
    html = template.render(Context({"t": HOSTILE_TITLE, "a": HOSTILE_ABSTRACT}))
    assert "<script" not in html
    assert "onerror" not in html
    assert "javascript:" not in html.lower()
    assert_inert(html, allowed={"h1", "div", "title", "p", "i", "b", "em", "strong", "sub", "sup"})


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "<script>",
                "</script>",
                "<img src=x onerror=alert(1)>",
                "<a href=",
                '"',
                "'",
                "javascript:",
                ">",
                "<",
                "&",
                "&lt;",
                "&#x6A;",
                "<p>",
                "</p>",
                "<i>",
                "onload=",
                " ",
                "\n\n",
                "$a<b$",
                "<svg",
                "<!--",
                "-->",
                "<style>",
                "x",
                "https://e.org",
                "<b",
                "=",
                "/",
                "<sub>",
                "<math>",
                "<jats:p>",
                "`",
                "\x00",
            ]
        )
        | st.text(max_size=5),
        max_size=40,
    ).map("".join)
)
def test_no_input_gives_markup_that_can_run(text):
    assert_inert(safe_html.abstract_html(text))
    assert_inert(safe_html.title_html(text), allowed=safe_html.INLINE_TAGS)


# Pages ------------------------------------------------------------------------


@pytest.fixture
def hostile_work(db):
    work = WorkFactory(title=HOSTILE_TITLE, abstract=HOSTILE_ABSTRACT, publication_year=2024)
    author = AuthorFactory(display_name='Mallory <script>window.__xss=8</script>"')
    AuthorshipFactory(work=work, author=author)
    return work


def assert_page_inert(html: str):
    for tag, attrs in elements(html):
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        for name in ("href", "src", "action"):
            assert not (attrs.get(name) or "").strip().lower().startswith("javascript"), attrs
    for attributes, body in re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S):
        if 'type="application/ld+json"' in attributes:
            # Data, never run: it may quote hostile text, but only as whole JSON that no
            # markup can close early.
            json.loads(body)
            assert "<" not in body, body[:200]
        else:
            assert "__xss" not in body


@pytest.mark.django_db
def test_the_work_page_shows_hostile_text_inertly(client, hostile_work):
    response = client.get(hostile_work.get_absolute_url())
    html = response.content.decode()
    assert response.status_code == 200
    assert_page_inert(html)
    assert "Evil  title" in html  # title words kept
    assert "Mallory &lt;script&gt;" in html  # names are text


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/search/?q=Evil"])
def test_lists_of_works_show_hostile_text_inertly(client, hostile_work, path):
    response = client.get(path)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Evil" in html
    assert_page_inert(html)


@pytest.mark.django_db
def test_the_researcher_page_shows_hostile_text_inertly(client, hostile_work):
    author = hostile_work.authorships.get().author
    response = client.get(author.get_absolute_url())
    assert response.status_code == 200
    html = response.content.decode()
    assert "Evil" in html
    assert_page_inert(html)
