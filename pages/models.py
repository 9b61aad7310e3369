"""What the public pages keep of their own: list entries, "More like this" lists and
work summaries drawn ahead of their visitors."""

from __future__ import annotations

from django.db import models


class KeptDrawing(models.Model):
    """What a page shows of one work, drawn ahead of its visitors (``pages.kept``)."""

    work = models.OneToOneField(
        "publications.Work", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    html = models.TextField()
    generation = models.CharField(max_length=16)
    rendered_at = models.DateTimeField()

    class Meta:
        abstract = True


class WorkEntry(KeptDrawing):
    """A work's list entry (``publications/_work_item.html``) as every list shows it.

    Drawn when the work or a name it shows changes (``pages.entries``), not when a
    list is read: a cold page reads entries instead of bylines and templates. The
    entry is the same for every list; the parts that depend on the list (the page's
    own researcher marked in the byline, a pin) are put in when it is read.
    ``generation`` names the template and code that drew it: an entry of another
    generation is drawn again.
    """

    def __str__(self) -> str:
        return f"entry of work {self.work_id}"


class SimilarList(KeptDrawing):
    """A work page's "More like this" list (``publications/_similar_list.html``) as drawn.

    Drawn when the work's matches are stored or a work it lists changes what the list
    shows of it (``pages.similar``), not when the page is read. ``generation`` names
    the template and code that drew it: a list of another generation is drawn again.
    """

    def __str__(self) -> str:
        return f"similar list of work {self.work_id}"


class WorkSummary(KeptDrawing):
    """What a work page shows of the work itself (``publications/_work_record.html``:
    the title, the first names of the byline and its last, the abstract, the facts and
    where each comes from), and its ``<head>`` metadata, as drawn.

    Drawn when the work or a name it shows changes (``pages.summaries``), not when
    the page is read. ``generation`` names the templates and code that drew it: a
    summary of another generation is drawn again.
    """

    metadata = models.TextField()

    def __str__(self) -> str:
        return f"summary of work {self.work_id}"


class ResearcherSummary(models.Model):
    """What a researcher page shows of the record itself, as drawn: its header and
    overview (``profiles/_researcher_facts.html``) and its figures, citations per year
    and the research graph (``profiles/_researcher_figures.html``).

    Drawn when anything the page shows of the record changes
    (``pages.researcher_summaries``), not when the page is read. ``generation``
    names the templates and code that drew it: a summary of another generation is
    drawn again.
    """

    author = models.OneToOneField(
        "publications.Author", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    html = models.TextField()
    figures = models.TextField()
    generation = models.CharField(max_length=16)
    rendered_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"summary of researcher {self.author_id}"


class ListingDrawing(models.Model):
    """A researcher's drawing that lists works: its HTML, the ids of the works it lists
    (the page is kept under their versions) and the generation that drew it."""

    author = models.OneToOneField(
        "publications.Author", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    html = models.TextField()
    shown = models.TextField(blank=True)  # the ids of the works listed, space-separated
    generation = models.CharField(max_length=16)
    rendered_at = models.DateTimeField()

    class Meta:
        abstract = True


class ResearcherWorks(ListingDrawing):
    """The works section of a researcher page as a visitor without a query string sees
    it (``profiles/_researcher_works.html``): the first page of works in the default
    order, the pins first, with the filter form, sort and export links and pages.

    Drawn when the list or any entry on it changes (``pages.researcher_works``), not
    when the page is read. ``shown`` holds the ids of the works listed, which the page
    is kept under; ``generation`` names the template and the entries' drawing.
    """

    def __str__(self) -> str:
        return f"works section of researcher {self.author_id}"


class ResearcherPage(ListingDrawing):
    """A researcher page whole, as an anonymous visitor without a query string sees it:
    the kept summary and works section in the page around them, with the panels such a
    visitor sees (the follower count, the holder's claim) and the sign-in links.

    Drawn with the summary and the works section (``pages.researcher_pages``), so a
    visitor arriving from a link or a search engine at a page nobody asked for lately
    is answered with two reads. ``shown`` holds the ids of the works listed, as the
    works section's; ``generation`` names the templates, static files and parts.
    """

    # Where the parts drawn for its visitor landed in the page (``pages.slots.spans_text``),
    # so that the page serves other visitors too, with their own parts in those places.
    slots = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"page of researcher {self.author_id}"


class WorkPage(models.Model):
    """A work page whole, as an anonymous visitor without a query string sees it: the
    kept summary, "More like this" list and citing works' entries in the page around
    them, with the first page of references and of citing works.

    Drawn with the work's summary (``pages.work_pages``). ``records`` names what the
    page shows (``work:12 author:7 ...``), whose page versions it is kept under.
    """

    work = models.OneToOneField(
        "publications.Work", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    html = models.TextField()
    records = models.TextField(blank=True)
    generation = models.CharField(max_length=16)
    rendered_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"page of work {self.work_id}"
