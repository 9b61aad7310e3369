"""Institution, venue and topic pages: the researchers and works we hold for each.

Each page is two paged lists (researchers, works) and their counts, read in a
fixed number of queries whatever the size: the lists are filtered by id
subqueries (no joins that multiply rows, no DISTINCT over millions) and only
the rows of the page shown are loaded, with their bylines prefetched.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from catalogue.identifiers import openalex_url
from catalogue.links import web_url
from catalogue.models import (
    Author,
    AuthorInstitution,
    Authorship,
    Institution,
    Topic,
    Venue,
    Work,
    WorkTopic,
)
from catalogue.selectors import works_with_authors

WORKS_PER_PAGE = 20
RESEARCHERS_PER_PAGE = 12


@dataclass
class SourceLink:
    label: str  # "ROR", "OpenAlex", "arXiv", "Homepage"
    url: str


@dataclass
class EntityPage:
    kind: str  # "institution", "venue", "topic"
    entity: Institution | Venue | Topic
    links: list[SourceLink]
    researchers: Page
    works: Page
    facts: list[tuple[str, str]] = field(default_factory=list)  # label, value


def _authors_of(work_ids: QuerySet) -> QuerySet[Author]:
    """Visible authors of the works whose ids ``work_ids`` selects."""
    author_ids = Authorship.objects.filter(work_id__in=work_ids).values("author_id")
    return Author.objects.visible().filter(id__in=author_ids)


def _researchers(authors: QuerySet[Author], page: str | None) -> Page:
    authors = authors.select_related("last_known_institution", "metrics").order_by(
        "display_name", "id"
    )
    return Paginator(authors, RESEARCHERS_PER_PAGE).get_page(page)


def _works(work_ids: QuerySet, page: str | None) -> Page:
    works = works_with_authors(Work.objects.visible().filter(id__in=work_ids)).order_by(
        "-publication_year", "-publication_date", "-id"
    )
    return Paginator(works, WORKS_PER_PAGE).get_page(page)


def _openalex(short_id: str | None) -> list[SourceLink]:
    url = openalex_url(short_id)
    return [SourceLink("OpenAlex", url)] if url else []


def _homepage(url: str) -> list[SourceLink]:
    found = web_url(url)
    return [SourceLink("Homepage", found)] if found else []


def institution_page(pk: int, *, works_page=None, researchers_page=None) -> EntityPage:
    """An institution with the researchers affiliated to it and the works written there."""
    institution = get_object_or_404(Institution, pk=pk)
    work_ids = Authorship.objects.filter(institutions=institution).values("work_id")
    affiliated = AuthorInstitution.objects.filter(institution=institution).values("author_id")
    authors = Author.objects.visible().filter(id__in=affiliated)
    links = [SourceLink("ROR", f"https://ror.org/{institution.ror}")] if institution.ror else []
    facts = [("Country", institution.country_code), ("Type", institution.type)]
    return EntityPage(
        kind="institution",
        entity=institution,
        links=links + _openalex(institution.openalex_id) + _homepage(institution.homepage_url),
        researchers=_researchers(authors, researchers_page),
        works=_works(work_ids, works_page),
        facts=[(label, value) for label, value in facts if value],
    )


def venue_page(pk: int, *, works_page=None, researchers_page=None) -> EntityPage:
    """A journal, conference or repository with the works we hold from it and their authors."""
    venue = get_object_or_404(Venue, pk=pk)
    work_ids = Work.objects.filter(venue=venue).values("id")
    facts = [("Type", venue.type), ("Publisher", venue.publisher), ("ISSN-L", venue.issn_l)]
    return EntityPage(
        kind="venue",
        entity=venue,
        links=_openalex(venue.openalex_id) + _homepage(venue.homepage_url),
        researchers=_researchers(_authors_of(work_ids), researchers_page),
        works=_works(work_ids, works_page),
        facts=[(label, value) for label, value in facts if value],
    )


def topic_source_link(topic: Topic) -> SourceLink | None:
    """The topic's page at its source: OpenAlex (topics, fields, concepts) or arXiv."""
    source, _, ident = topic.key.partition(":")
    if source == "openalex" and ident:
        return SourceLink("OpenAlex", f"https://openalex.org/{ident}")
    if source == "arxiv" and ident:
        return SourceLink("arXiv", f"https://arxiv.org/list/{ident}/recent")
    return None


def topic_page(pk: int, *, works_page=None, researchers_page=None) -> EntityPage:
    """A topic or arXiv category with the works tagged with it and their authors."""
    topic = get_object_or_404(Topic.objects.select_related("parent"), pk=pk)
    work_ids = WorkTopic.objects.filter(topic=topic).values("work_id")
    link = topic_source_link(topic)
    return EntityPage(
        kind="topic",
        entity=topic,
        links=[link] if link else [],
        researchers=_researchers(_authors_of(work_ids), researchers_page),
        works=_works(work_ids, works_page),
        facts=[("Kind", topic.get_kind_display())],
    )
