"""OpenAlex mapping on recorded real responses: payload in, record out."""

import contextlib
import copy
import json
from datetime import UTC, date, datetime

import pytest

from ingestion.records import MappingError
from ingestion.sources.openalex.entities import (
    map_author,
    map_institution,
    map_topic,
    map_venue,
)
from ingestion.sources.openalex.mapping import decode_abstract, map_work, work_type
from tests.ingestion.sources.openalex_recordings import (
    cassette_body,
    cited_by_results,
    load,
    snapshot_lines,
)

# --- works


def test_work_w2741809807_maps_field_by_field(real_fixtures):
    record = map_work(load(real_fixtures, "works__W2741809807__2025-06.json"))

    assert (record.source, record.external_id, record.openalex_id) == (
        "openalex",
        "W2741809807",
        "W2741809807",
    )
    assert record.title.startswith("The state of OA: a large-scale analysis")
    assert record.abstract.startswith("Despite growing interest in Open Access (OA) to scholarly")
    assert record.doi == "10.7717/peerj.4375"
    assert record.pmid == "29456894"
    assert record.arxiv_id is None
    assert record.type == "article"
    assert record.language == "en"
    assert record.publication_date == date(2018, 2, 13)
    assert record.publication_year == 2018
    assert record.created_date == date(2017, 8, 8)
    assert record.updated_at == datetime(2025, 6, 11, 0, 3, 37, 532706, tzinfo=UTC)
    assert record.venue.name == "PeerJ"
    assert record.venue.openalex_id == "S1983995261"
    assert record.venue.issn_l == "2167-8359"
    assert record.venue.type == "journal"
    assert record.venue.publisher == "PeerJ, Inc."
    assert record.pdf_url == "https://peerj.com/articles/4375.pdf"
    assert record.landing_url == "https://doi.org/10.7717/peerj.4375"
    assert record.license == "cc-by"
    assert record.is_open_access is True
    assert record.is_retracted is False
    assert record.cited_by_count == 962
    assert record.counts_by_year[0] == {"year": 2025, "cited_by_count": 30}
    assert record.grants == []


def test_work_w2741809807_authors_in_order_with_orcids(real_fixtures):
    record = map_work(load(real_fixtures, "works__W2741809807__2025-06.json"))

    names = [a.name for a in record.authors]
    assert names[:3] == ["Heather Piwowar", "Jason Priem", "Vincent Larivière"]
    assert [a.position for a in record.authors] == list(range(len(record.authors)))
    first = record.authors[0]
    assert first.openalex_id == "A5048491430"
    assert first.orcid == "0000-0003-1613-5981"
    assert first.raw_name == "Heather Piwowar"
    assert first.raw_affiliation == "Impactstory, Sanford, NC, USA"
    institution = first.institutions[0]
    assert institution.openalex_id == "I4210166736"
    assert institution.ror == "05ppvf150"
    assert (institution.country_code, institution.type) == ("US", "company")
    assert record.authors[1].orcid == "0000-0001-6187-6610"
    assert {i.name for i in record.authors[2].institutions} == {
        "Université de Montréal",
        "Université du Québec à Montréal",
    }


def test_work_topics_carry_their_hierarchy(real_fixtures):
    record = map_work(load(real_fixtures, "works__W2741809807__2025-06.json"))

    primary = record.topics[0]
    assert (primary.key, primary.kind, primary.is_primary) == ("openalex:T10102", "topic", True)
    assert primary.name == "scientometrics and bibliometrics research"
    assert primary.score == pytest.approx(0.9969)
    subfield = primary.parent
    assert (subfield.key, subfield.kind) == ("openalex:subfields/1804", "subfield")
    assert (subfield.parent.key, subfield.parent.kind) == ("openalex:fields/18", "field")
    domain = subfield.parent.parent
    assert (domain.key, domain.kind, domain.name) == (
        "openalex:domains/2",
        "domain",
        "Social Sciences",
    )
    assert sum(t.is_primary for t in record.topics) == 1
    assert all(t.kind == "topic" for t in record.topics)  # topics win over legacy concepts


def test_legacy_snapshot_line_maps(real_fixtures):
    line = snapshot_lines(real_fixtures)[0]
    assert "host_venue" in line and "primary_location" not in line

    record = map_work(line)

    assert record.external_id == "W1612067013"
    assert record.type == "article"  # "journal-article" in the legacy schema
    assert record.doi == "10.12927/hcq.2008.19503"
    assert record.pmid == "18326386"
    assert record.venue.name == "Healthcare quarterly (Toronto)"
    assert record.venue.openalex_id == "S2755781118"  # legacy V2755781118
    assert record.venue.publisher == "Healthc Q"
    assert record.landing_url == "https://doi.org/10.12927/hcq.2008.19503"
    assert record.abstract.startswith("3C have a constant need to manage their own personal")
    assert record.updated_at == datetime(2021, 11, 3, tzinfo=UTC)
    assert record.topics[0].kind == "concept"
    assert record.topics[0].key == "openalex:C160735492"
    assert record.topics[0].score == pytest.approx(0.524293)
    author = record.authors[0]
    assert author.name == "Kevin J. Leonard"
    assert author.raw_affiliation.startswith("Department of Health Policy, Management")
    assert author.institutions[0].ror == "03dbr7087"


def test_every_snapshot_line_maps(real_fixtures):
    records = [map_work(line) for line in snapshot_lines(real_fixtures)]

    assert {r.type for r in records} == {"article", "book", "book-chapter"}
    arxiv = [r for r in records if r.arxiv_id]
    # An alternate host venue at http://arxiv.org/pdf/1008.5205 gives the arXiv id.
    assert "1008.5205" in {r.arxiv_id for r in arxiv}


def test_arxiv_id_from_doi_and_from_arxiv_locations(real_fixtures):
    works = cited_by_results(real_fixtures)

    assert map_work(works["W2525778437"]).arxiv_id == "1609.08144"  # 10.48550/arxiv DOI
    located = map_work(works["W1996515099"])  # Springer DOI, arxiv.org location
    assert located.doi == "10.1007/s11192-015-1547-0"
    assert located.arxiv_id == "1503.05702"


def test_grants_and_funders_drift(real_fixtures):
    works = cited_by_results(real_fixtures)

    legacy = map_work(works["W2938946739"]).grants  # grants + funders for one funder
    assert len(legacy) == 1
    assert legacy[0].funder_name == "Alfred P. Sloan Foundation"
    assert legacy[0].funder_openalex_id == "F4320306151"
    assert legacy[0].funder_ror == "052csg198"
    assert legacy[0].award_id == "G\u20102017\u20109800"

    funder_only = map_work(works["W1996515099"]).grants  # funders, no grants, no awards
    assert [(g.funder_openalex_id, g.funder_ror, g.award_id) for g in funder_only] == [
        ("F4320321001", "01h0zpd94", "")
    ]


def test_awards_are_merged_with_grants_without_duplicates(real_fixtures):
    # No recorded work has a non-empty ``awards`` list yet; its fields are those the
    # recorded 400 error lists as valid filters (awards.funder_award_id, awards.funder_id…).
    payload = copy.deepcopy(cited_by_results(real_fixtures)["W2938946739"])
    payload["awards"] = [
        {
            "id": "https://openalex.org/G5453342221",
            "display_name": "Scholarly communication",
            "funder_award_id": "G-2017-9800",
            "funder_id": "https://openalex.org/F4320306151",
            "funder_display_name": "Alfred P. Sloan Foundation",
            "doi": None,
        },
        {
            "id": "https://openalex.org/G1",
            "funder_award_id": "123",
            "funder_id": "https://openalex.org/F4320321001",
            "funder_display_name": None,
        },
    ]
    payload["funders"].append(
        {
            "id": "https://openalex.org/F4320321001",
            "display_name": "National Natural Science Foundation of China",
            "ror": "https://ror.org/01h0zpd94",
        }
    )

    grants = map_work(payload).grants

    assert [(g.funder_name, g.award_id, g.funder_ror) for g in grants] == [
        ("Alfred P. Sloan Foundation", "G-2017-9800", "052csg198"),
        ("National Natural Science Foundation of China", "123", "01h0zpd94"),
    ]


def test_null_title_cassette_raises_mapping_error(real_fixtures):
    payload = json.loads(cassette_body(real_fixtures, "openalexPro__api_call_200.yml"))
    assert payload["type"] == "paratext"

    with pytest.raises(MappingError, match="work W4234567890 has no title"):
        map_work(payload)


def test_empty_title_raises_mapping_error(real_fixtures):
    # The BERT paper comes with title "" in the 2025-11 recording.
    with pytest.raises(MappingError, match="W2963341956 has no title"):
        map_work(cited_by_results(real_fixtures)["W2963341956"])


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ([], "not a JSON object"),
        ({"title": "x"}, "has no id"),
        ({"id": "https://openalex.org/A5023888391", "title": "x"}, "not an OpenAlex work id"),
    ],
)
def test_malformed_work_payloads_raise_mapping_error(payload, message):
    with pytest.raises(MappingError, match=message):
        map_work(payload)


def test_sparse_work_keeps_unknowns_unknown():
    record = map_work(
        {
            "id": "https://openalex.org/W1",
            "title": "<i>Sparse</i> work",
            "type": "something-new",
            "authorships": [None, {"author": {}, "raw_author_name": "Ann Raw"}],
            "primary_location": None,
            "topics": None,
        }
    )

    assert record.title == "Sparse work"
    assert record.type == "other"
    assert record.cited_by_count is None
    assert record.is_open_access is None
    assert record.venue is None
    assert [(a.position, a.name, a.openalex_id) for a in record.authors] == [(1, "Ann Raw", None)]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("journal-article", "article"),
        ("posted-content", "preprint"),
        ("proceedings-article", "article"),
        ("book-chapter", "book-chapter"),
        ("dissertation", "dissertation"),
        ("paratext", "paratext"),
        ("letter", "letter"),
        (None, "other"),
    ],
)
def test_work_types(raw, expected):
    assert work_type(raw) == expected


def test_decode_abstract_both_shapes():
    assert decode_abstract({"world": [1], "hello": [0, 2]}) == "hello world hello"
    legacy = {"IndexLength": 3, "InvertedIndex": {"b": [1], "a": [0], "c": [2]}}
    assert decode_abstract(legacy) == "a b c"
    assert decode_abstract(None) == ""
    assert decode_abstract({"odd": None, "ok": [0]}) == "ok"


# --- authors and institutions


def test_deleted_author_placeholder(real_fixtures):
    record = map_author(load(real_fixtures, "authors__A5317838346__deleted-author__2025-06.json"))

    assert record.is_deleted is True
    assert record.external_id == "A5317838346"
    assert record.works_count == 0
    assert record.last_known_institutions == [] and record.affiliations == []


def test_legacy_author_with_last_known_institution(real_fixtures):
    name = "authors__A5023888391__jason-priem__2023-10__legacy-schema.json"
    record = map_author(load(real_fixtures, name))

    assert record.is_deleted is False
    assert record.orcid == "0000-0001-6187-6610"
    assert [(i.name, i.openalex_id, i.ror) for i in record.last_known_institutions] == [
        ("OurResearch", "I4200000001", "02nr0ka47")
    ]
    assert record.alternative_names == ["Priem Jason"]
    assert record.topics[0].kind == "concept"
    assert record.topics[0].key == "openalex:C41008148"
    assert record.topics[0].score == pytest.approx(0.962)  # x_concepts score 96.2 of 100
    assert record.updated_at == datetime(2023, 10, 28, 16, 53, 59, 724026, tzinfo=UTC)


def test_current_author_with_affiliations_and_topics(real_fixtures):
    record = map_author(
        load(real_fixtures, "authors__A5068542997__vincent-lariviere__2025-10.json")
    )

    assert record.display_name == "Vincent Larivière"
    assert record.orcid == "0000-0002-2733-0689"
    assert "Vincent Larivière" not in record.alternative_names
    assert "V. Lariviere" in record.alternative_names
    assert len(record.last_known_institutions) == 3
    assert record.affiliations[0].institution.name == "Université du Québec à Montréal"
    assert record.affiliations[0].years[:2] == [2025, 2024]
    assert (record.works_count, record.cited_by_count) == (617, 21153)
    top = record.topics[0]
    assert (top.key, top.kind, top.score) == ("openalex:T10102", "topic", 296.0)
    assert top.parent.parent.parent.key == "openalex:domains/2"


def test_map_institution_keeps_homepage(real_fixtures):
    ref = map_institution(
        load(real_fixtures, "institutions__I161548249__bangor-university__2025-10.json")
    )

    assert ref.name == "Bangor University"
    assert ref.openalex_id == "I161548249"
    assert ref.ror == "006jb1a24"
    assert ref.homepage_url == "https://www.bangor.ac.uk"
    assert (ref.country_code, ref.type) == ("GB", "funder")


def test_map_topic_and_concept_entities(real_fixtures):
    topic = map_topic(load(real_fixtures, "topics__T11636__2025-06.json"))
    concept = map_topic(load(real_fixtures, "concepts__C41008148__computer-science__2025-10.json"))

    assert (topic.key, topic.kind) == ("openalex:T11636", "topic")
    assert topic.name == "Artificial Intelligence in Healthcare and Education"
    assert (topic.parent.key, topic.parent.name) == (
        "openalex:subfields/2718",
        "Health Informatics",
    )
    assert topic.parent.parent.parent.key == "openalex:domains/4"
    assert (concept.key, concept.kind, concept.name) == (
        "openalex:C41008148",
        "concept",
        "Computer science",
    )


def test_map_venue_source_entity(real_fixtures):
    venue = map_venue(load(real_fixtures, "sources__S4306400194__arxiv__2025-10.json"))

    assert venue.name == "arXiv (Cornell University)"
    assert venue.openalex_id == "S4306400194"
    assert (venue.type, venue.publisher) == ("repository", "Cornell University")
    assert venue.homepage_url == "https://arxiv.org"
    assert venue.issn_l == ""


def test_map_author_rejects_other_entities(real_fixtures):
    with pytest.raises(MappingError, match="not an OpenAlex author id"):
        map_author(load(real_fixtures, "institutions__I161548249__bangor-university__2025-10.json"))


def test_mapping_never_changes_the_payload(real_fixtures):
    """Mappers are pure: the stored payload and its content hash must be what the source sent."""
    import copy

    from ingestion.sources.files import read_file

    checked = 0
    for path in sorted((real_fixtures / "openalex").rglob("*.json*")):
        for page in read_file(path):
            mapper = {"work": map_work, "author": map_author}.get(getattr(page, "entity", None))
            for payload in getattr(page, "payloads", []) if mapper else []:
                before = copy.deepcopy(payload)
                with contextlib.suppress(MappingError):
                    mapper(payload)
                assert payload == before, f"{path.name}: mapping changed {payload.get('id')}"
                checked += 1
    assert checked > 100


def test_works_with_the_same_topic_hierarchy_share_its_refs_and_odd_values_still_map():
    from ingestion.sources.openalex.mapping import map_work

    topic = {
        "id": "https://openalex.org/T10102",
        "display_name": "Graph Theory",
        "score": 0.9,
        "subfield": {"id": "https://openalex.org/subfields/2607", "display_name": "Discrete Math"},
        "field": {"id": "https://openalex.org/fields/26", "display_name": "Mathematics"},
        "domain": {"id": "https://openalex.org/domains/3", "display_name": "Physical Sciences"},
    }
    works = [
        {"id": f"https://openalex.org/W{n}", "title": f"Work {n}", "topics": [topic]}
        for n in (1, 2)
    ]
    first, second = (map_work(w).topics[0] for w in works)
    assert first.parent is second.parent
    assert [first.parent.name, first.parent.parent.name, first.parent.parent.parent.name] == [
        "Discrete Math",
        "Mathematics",
        "Physical Sciences",
    ]
    odd = {**topic, "field": {"id": ["not", "an", "id"], "display_name": "Mathematics"}}
    record = map_work({"id": "https://openalex.org/W3", "title": "Odd", "topics": [odd]})
    assert record.topics[0].parent.key == "openalex:subfields/2607"
    assert record.topics[0].parent.parent.kind == "domain"  # the unreadable field is skipped
