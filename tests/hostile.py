"""Hostile imported records: what an attacker or a careless source could send.

``write_hostile_snapshot(path)`` writes an OpenAlex snapshot (JSON Lines: works,
then authors) where good records carry script tags, event handlers, script
URLs in every URL field, HTML entity tricks, NUL and control characters,
100,000-character strings, right-to-left overrides and zero-width characters,
huge integers in fields nobody reads, mixed with poison records (wrong types,
counts that are text, negative or past 2**63, malformed dates, a bare JSON
array line, NaN, numbers too large for a float, an id hiding a NUL, a record
nested 100,000 levels deep), markup in every code
(language, ISSN, venue type), and a record giving one work's DOI with another
work's arXiv id. It returns what an import of it must give.
``big_byline_work()`` is a work of 3,000 authors.
``hostile_arxiv_feed()`` is an arXiv Atom feed in the same spirit,
``HOSTILE_ARXIV`` what it must give. ``write_bomb(path)`` writes a gzipped
snapshot with a line of ``BOMB_BYTES`` that unpacks from a few hundred kilobytes,
and ``NESTED`` is a document nested past what a JSON parser can read.

Pure data: nothing here touches the database, so a browser walk can reuse it.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from xml.sax.saxutils import escape

LONG = 100_000
SCRIPT = "<script>alert('xss')</script>"
HANDLER = '<img src=x onerror="alert(1)">'
ENTITY_SCRIPT = "&lt;script&gt;alert(2)&lt;/script&gt;"
RTL = "\u202e"  # RIGHT-TO-LEFT OVERRIDE
ZERO_WIDTH = "\u200b\u200d\ufeff"
CONTROLS = "\u0000\u0007\u001b\u0085\u009b"
SCRIPT_URLS = [
    "javascript:alert(document.domain)",
    "  JaVaScRiPt:alert(1)",
    "\u0001javascript:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "&#x6a;avascript:alert(1)",
    "//evil.example/x",
    "/relative/path",
]
MARK = "Hostile"  # every good work's title starts with a word that survives cleaning
BIG_BYLINE = 3_000  # real collaboration papers have as many authors
CONFLICT_DOI = "https://doi.org/10.5555/hostile-nine"
CONFLICT_ARXIV = "2101.99010"


def _id(letter: str, number: int) -> str:
    return f"https://openalex.org/{letter}{number}"


def _url(number: int) -> str:
    return SCRIPT_URLS[number % len(SCRIPT_URLS)]


def _author(number: int, name: str) -> dict:
    return {"id": _id("A", 990000 + number), "display_name": name, "orcid": None}


def _authorship(number: int, name: str, *, affiliation: str = "Institute") -> dict:
    return {
        "author_position": "first" if number == 0 else "middle",
        "author": _author(number, name),
        "raw_author_name": name,
        "institutions": [
            {
                "id": _id("I", 990000 + number),
                "display_name": f"{affiliation} {SCRIPT}",
                "ror": None,
                "country_code": "FR",
                "type": "education",
                "homepage_url": _url(number + 3),
            }
        ],
        "raw_affiliation_strings": [f"{affiliation}{CONTROLS} {HANDLER}"],
        "is_corresponding": number == 0,
    }


def _abstract(words: list[str]) -> dict:
    index: dict[str, list[int]] = {}
    for position, word in enumerate(words):
        index.setdefault(word, []).append(position)
    return index


def _work(number: int, title: str, **extra) -> dict:
    work = {
        "id": _id("W", 990000 + number),
        "doi": None,
        "title": title,
        "display_name": title,
        "publication_year": 2021,
        "publication_date": "2021-03-04",
        "type": "article",
        "cited_by_count": 3,
        "counts_by_year": [{"year": 2022, "cited_by_count": 3}],
        "abstract_inverted_index": _abstract(
            ["An", SCRIPT, "abstract", HANDLER, ENTITY_SCRIPT, f"with{CONTROLS}controls"]
        ),
        "authorships": [
            _authorship(0, f"Ann{CONTROLS} Bell {SCRIPT}"),
            _authorship(1, f"{RTL}Zed{ZERO_WIDTH} Roe", affiliation=f"{RTL}Lab"),
        ],
        "primary_location": {
            "landing_page_url": _url(number),
            "pdf_url": _url(number + 1),
            "source": {
                "id": _id("S", 990000 + number),
                "display_name": f"Journal of {HANDLER}",
                "issn_l": f"{SCRIPT}1234-5678",
                "type": f"journal{HANDLER}",
                "host_organization_name": f"Publisher {ENTITY_SCRIPT}",
                "homepage_url": _url(number + 2),
            },
        },
        "best_oa_location": {"pdf_url": _url(number + 4)},
        "locations": [{"landing_page_url": _url(number + 5), "pdf_url": None}],
        "topics": [
            {
                "id": "https://openalex.org/T990001",
                "display_name": f"Topic {SCRIPT}",
                "score": 0.9,
                "subfield": {"id": "https://openalex.org/subfields/9901", "display_name": "Sub"},
                "field": {"id": "https://openalex.org/fields/99", "display_name": "Field"},
                "domain": {"id": "https://openalex.org/domains/9", "display_name": "Domain"},
            }
        ],
        "open_access": {"is_oa": True},
    }
    work.update(extra)
    return work


def good_works() -> list[dict]:
    """Works whose text and links are hostile but whose shape is right: all must land."""
    return [
        _work(1, f"{MARK} {SCRIPT} title {HANDLER} one"),
        _work(2, f"{MARK} entity {ENTITY_SCRIPT} &#x3C;svg onload=alert(3)&#x3E; two"),
        _work(3, f"{MARK} controls{CONTROLS} and {RTL}override{ZERO_WIDTH} three"),
        _work(4, f"{MARK} long " + "x" * LONG),
        _work(
            5,
            f"{MARK} long abstract five",
            abstract_inverted_index=_abstract(["word"] * 5 + ["y" * LONG]),
            authorships=[_authorship(0, f"Longname {'n' * LONG}")],
        ),
        _work(6, f"{MARK} huge unread number six", x_unread=10**30, x_note="a\u0000b"),
        _work(7, f"{MARK} lone surrogate \ud800 seven", x_big=2**63 + 1),
        _work(8, f"{MARK} codes with markup eight", language=SCRIPT),
        _work(9, f"{MARK} holds a DOI nine", doi=CONFLICT_DOI),
        _work(10, f"{MARK} a preprint ten", doi=f"https://doi.org/10.48550/arxiv.{CONFLICT_ARXIV}"),
    ]


def big_byline_work() -> dict:
    """A collaboration paper of ``BIG_BYLINE`` hostile names (its own file: every page of
    each of its authors would be walked in the snapshot's tests)."""
    return _work(
        11,
        f"{MARK} collaboration of {BIG_BYLINE} authors",
        authorships=[_authorship(n, f"Member{n} {SCRIPT}") for n in range(BIG_BYLINE)],
    )


def conflicting_works() -> list[dict]:
    """A record giving work nine's DOI with work ten's arXiv id: one work cannot take both."""
    conflicting = _work(12, f"{MARK} two works' identifiers twelve", doi=CONFLICT_DOI)
    conflicting["locations"] = [{"landing_page_url": f"https://arxiv.org/abs/{CONFLICT_ARXIV}"}]
    return [conflicting]


def poison_works() -> list[dict]:
    """Works whose shape is wrong: each must become an ImportProblem keeping its payload."""
    return [
        _work(101, 12345),
        _work(102, f"{MARK} authorships as text", authorships="Ann Bell"),
        _work(103, f"{MARK} count as text", cited_by_count="12"),
        _work(104, f"{MARK} negative count", cited_by_count=-5),
        _work(105, f"{MARK} count past 2**63", cited_by_count=10**25),
        _work(106, f"{MARK} malformed date", publication_date="2021-13-45"),
        _work(107, f"{MARK} year as text", publication_year="MMXXI"),
    ]


POISON_LINES = [  # lines that are not one JSON record: each must become a problem, kept whole
    json.dumps([_work(201, f"{MARK} inside a bare array")]),
    json.dumps("just a string"),
    '{"id": "https://openalex.org/W990202", "title": "NaN count", "cited_by_count": NaN}',
    '{"id": "https://openalex.org/W990203", "title": "Too large", "cited_by_count": 1e400}',
    json.dumps({"id": "https://openalex.org/W990204\u0000", "title": "NUL in the id"}),
    '{"id": "https://openalex.org/W990205", "title": "Deep", "x": '
    + "[" * 100_000
    + "]" * 100_000
    + "}",
]
NESTED = "[" * 100_000  # a whole .json file nested past any parser's depth
BOMB_BYTES = 128 * 1024 * 1024  # one line of one repeated byte


def good_authors() -> list[dict]:
    return [
        {
            "id": _id("A", 990000),
            "display_name": f"Ann{CONTROLS} Bell {SCRIPT}",
            "display_name_alternatives": ["A. Bell", "z" * LONG, f"{RTL}lleB nnA"],
            "works_count": 2,
            "cited_by_count": 6,
            "last_known_institutions": [
                {
                    "id": _id("I", 990000),
                    "display_name": f"Institute {HANDLER}",
                    "homepage_url": SCRIPT_URLS[0],
                }
            ],
            "affiliations": [
                {"institution": {"id": _id("I", 990000), "display_name": "Inst"}, "years": [2021]}
            ],
            "x_unread": 10**40,
        }
    ]


def poison_authors() -> list[dict]:
    return [{"id": _id("A", 990101), "display_name": "Bad Count", "works_count": "many"}]


def write_hostile_snapshot(path: Path | str) -> dict:
    """Write the hostile snapshot to ``path``; return what importing it must give.

    ``good_works``/``good_authors``: OpenAlex ids (W…/A…) that must be imported;
    ``poison``: ids of records that must become ImportProblems (payload kept);
    ``poison_lines``: how many lines are not one record (problems kept whole);
    ``conflicts``: ids of records whose identifiers belong to two works;
    ``problems``: how many ImportProblems the run records in all.
    """
    works, bad_works = good_works(), poison_works()
    authors, bad_authors = good_authors(), poison_authors()
    lines = [json.dumps(w) for w in works[:3]]
    lines += [json.dumps(w) for w in bad_works[:3]]
    lines += POISON_LINES
    lines += [json.dumps(w) for w in works[3:] + bad_works[3:]]
    lines += [json.dumps(w) for w in conflicting_works()]
    lines += [json.dumps(a) for a in authors + bad_authors]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    short = lambda record: record["id"].rsplit("/", 1)[-1]  # noqa: E731
    return {
        "good_works": [short(w) for w in works],
        "good_authors": [short(a) for a in authors],
        "poison": [short(r) for r in bad_works + bad_authors],
        "poison_lines": len(POISON_LINES),
        "conflicts": [short(w) for w in conflicting_works()],
        "problems": len(bad_works) + len(bad_authors) + len(POISON_LINES) + 1,
    }


def write_bomb(path: Path | str) -> dict:
    """Write a gzipped snapshot: a good work, a line of ``BOMB_BYTES`` (about 130 KB
    gzipped), another good work; return the ids that must be imported beside one problem."""
    works = good_works()[:2]
    with gzip.open(path, "wb", compresslevel=9) as out:
        out.write(json.dumps(works[0]).encode() + b"\n")
        for _ in range(BOMB_BYTES // 1024 // 1024):
            out.write(b"a" * 1024 * 1024)
        out.write(b"\n" + json.dumps(works[1]).encode() + b"\n")
    return {"good_works": [w["id"].rsplit("/", 1)[-1] for w in works]}


def _entry(arxiv_id: str, title: str, links: list[tuple[str, str, str]], **text) -> str:
    link_xml = "".join(
        f'<link href="{escape(href, {chr(34): "&quot;"})}" rel="{rel}" {kind}/>'
        for href, rel, kind in links
    )
    authors = "".join(
        f"<author><name>{escape(name)}</name>"
        f"<arxiv:affiliation>{escape(text.get('affiliation', 'Lab'))}</arxiv:affiliation></author>"
        for name in text.get("authors", ["Ann Bell"])
    )
    return f"""<entry>
<id>http://arxiv.org/abs/{arxiv_id}v1</id>
<updated>2021-03-04T00:00:00Z</updated><published>2021-03-04T00:00:00Z</published>
<title>{escape(title)}</title>
<summary>{escape(text.get("summary", "An abstract."))}</summary>
{authors}
<arxiv:comment>{escape(text.get("comment", "10 pages"))}</arxiv:comment>
{link_xml}
<arxiv:primary_category term="cs.CR" scheme="http://arxiv.org/schemas/atom"/>
<category term="cs.CR" scheme="http://arxiv.org/schemas/atom"/>
</entry>"""


# XML 1.0 cannot carry most C0 controls even as references, so a feed cannot hold them;
# what a feed can hold is markup (escaped), entities, C1 controls, RTL and zero-width.
_FEED_CONTROLS = "\u0085\u009b"

HOSTILE_ARXIV = {
    "good": ["2103.99001", "2103.99002", "2103.99003"],
    "dropped": {"2103.99001": ["pdf_url", "landing_url"], "2103.99002": ["pdf_url"]},
}


def hostile_arxiv_feed() -> str:
    """An arXiv Atom feed whose entries carry script, entity tricks and script URLs in links."""
    entries = [
        _entry(
            "2103.99001",
            f"{MARK} {SCRIPT} arXiv one",
            [
                ("javascript:alert(1)", "alternate", 'type="text/html"'),
                ("  JaVaScRiPt:alert(2)", "related", 'title="pdf" type="application/pdf"'),
            ],
            summary=f"Abstract {SCRIPT} {HANDLER} {ENTITY_SCRIPT}{_FEED_CONTROLS}",
            authors=[f"Ann{_FEED_CONTROLS} Bell {SCRIPT}", f"{RTL}Zed{ZERO_WIDTH} Roe"],
            comment=f"Code at javascript:alert(3) {SCRIPT}",
            affiliation=f"Lab {HANDLER}",
        ),
        _entry(
            "2103.99002",
            f"{MARK} entity {ENTITY_SCRIPT} arXiv two",
            [
                ("https://arxiv.org/abs/2103.99002v1", "alternate", 'type="text/html"'),
                ("data:text/html,<script>alert(1)</script>", "related", 'title="pdf"'),
            ],
        ),
        _entry("2103.99003", f"{MARK} long " + "t" * LONG, [], summary="s " * LONG),
    ]
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom">\n'
        "<title>arXiv Query</title><id>http://arxiv.org/api/hostile</id>\n"
        "<updated>2021-03-05T00:00:00Z</updated>\n"
        f"<opensearch:totalResults>{len(entries)}</opensearch:totalResults>\n"
        "<opensearch:startIndex>0</opensearch:startIndex>\n"
        f"<opensearch:itemsPerPage>{len(entries)}</opensearch:itemsPerPage>\n"
        + "\n".join(entries)
        + "\n</feed>\n"
    )
