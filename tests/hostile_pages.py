"""Every address that shows hostile imported records: pages, feeds and exports.

Shared by the server-side check (tests/ingestion/importing/test_hostile_import.py) and the
browser walk (tests/e2e/test_hostile_pages.py), so a page added to the site is
added to both by adding it here.
"""

from __future__ import annotations

from django.urls import reverse

from catalogue.models import Institution, Topic, Work, WorkTopic
from tests.factories import AuthorshipFactory, InstitutionFactory, VenueFactory

# Text that ends a <script> element and runs script where a page writes it unescaped,
# e.g. inside JSON-LD: imports strip markup, so only rows written before they did hold it.
# A <video> is no tag the display's markup stripping knows, so its handler survives it.
CLOSE_SCRIPT = "</script><video src=x onerror=\"alert('ld')\"><script>alert('ld')</script><!--"


def record_pages(works: list[Work]) -> list[str]:
    """HTML pages: home, search, each work, researcher, institution, venue, topic, explorer."""
    pages = [
        reverse("publications:home"),
        reverse("publications:search") + "?q=Hostile",
        reverse("publications:search") + "?q=script",
    ]
    institutions: set[int] = set()
    for work in works:
        pages.append(work.get_absolute_url())
        pages.append(reverse("graph:work-explorer", args=[work.pk]))
        if work.venue is not None:
            pages.append(work.venue.get_absolute_url())
        pages += [topic.get_absolute_url() for topic in work.topics.all()]
        for authorship in work.authorships.select_related("author"):
            institutions.update(i.pk for i in authorship.institutions.all())
            author = authorship.author
            pages.append(author.get_absolute_url())
            pages.append(reverse("graph:explorer", args=[author.pk]))
            if author.last_known_institution_id:
                institutions.add(author.last_known_institution_id)
    pages += [i.get_absolute_url() for i in Institution.objects.filter(pk__in=institutions)]
    return list(dict.fromkeys(pages))


def authors_of(works: list[Work]) -> list[int]:
    return sorted({a.pk for work in works for a in work.authors.all()})


def feed_urls(works: list[Work]) -> list[str]:
    return [reverse("profiles:researcher_feed", args=[pk]) for pk in authors_of(works)]


def export_urls(works: list[Work]) -> list[str]:
    """Downloads: each work's own, each researcher's whole list, a page of search results."""
    urls = [reverse(name, args=[w.pk]) for w in works for name in WORK_EXPORTS]
    urls += [
        reverse(f"profiles:researcher_export_{ext}", args=[pk])
        for pk in authors_of(works)
        for ext in LIST_FORMATS
    ]
    urls += [reverse(f"publications:search-export-{ext}") + "?q=Hostile" for ext in LIST_FORMATS]
    return urls


WORK_EXPORTS = ("publications:work-export-bib", "publications:work-export-ris")
LIST_FORMATS = ("bib", "ris", "json")


def raw_rows() -> Work:
    """A work, its author, institution, venue and topic written as rows, past the import's
    checks (as rows stored before it checked): every name and link the pages and their
    JSON-LD carry holds markup that would close the element, or a script address."""
    institution = InstitutionFactory(
        name=f"Raw institute {CLOSE_SCRIPT}", homepage_url="javascript:alert('home')"
    )
    authorship = AuthorshipFactory(
        work__title=f"Hostile raw row {CLOSE_SCRIPT}",
        work__abstract=f"An abstract {CLOSE_SCRIPT}",
        work__pdf_url="javascript:alert('pdf')",
        work__landing_url=" JaVaScRiPt:alert('landing')",
        work__oa_url="data:text/html,<script>alert('oa')</script>",
        work__venue=VenueFactory(
            name=f"Raw journal {CLOSE_SCRIPT}", homepage_url="vbscript:msgbox(1)"
        ),
        author__display_name=f"Raw Name {CLOSE_SCRIPT}",
        author__last_known_institution=institution,
    )
    authorship.institutions.add(institution)
    topic = Topic.objects.create(
        key="openalex:T999999", name=f"Raw topic {CLOSE_SCRIPT}", kind=Topic.Kind.TOPIC
    )
    WorkTopic.objects.create(work=authorship.work, topic=topic, score=0.5, source="openalex")
    return authorship.work
