"""HTTP validators for the read API's records (see ``pages.conditional``)."""

from __future__ import annotations

from pages.conditional import RecordsOf, conditional


class VersionedRetrieve:
    """A viewset whose ``retrieve`` answers carry an ETag and Last-Modified from the page
    versions of ``retrieve_records`` (304 while they hold)."""

    retrieve_records: RecordsOf

    def retrieve(self, request, *args, **kwargs):
        def answer(request, *args, **kwargs):
            return super(VersionedRetrieve, self).retrieve(request, *args, **kwargs)

        return conditional(type(self).retrieve_records)(answer)(request, *args, **kwargs)
