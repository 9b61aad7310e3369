"""HTTP validators for the read API's records (see ``pages.conditional``)."""

from __future__ import annotations

from pages.conditional import RecordsOf, conditional


class VersionedRetrieve:
    """A viewset whose ``retrieve`` answers carry an ETag and Last-Modified from the page
    versions of ``retrieve_records`` (304 while they hold).

    The answer itself is ``answer_record``'s: the record as the serializer writes it,
    unless the viewset writes it another way.
    """

    retrieve_records: RecordsOf

    def retrieve(self, request, *args, **kwargs):
        return conditional(type(self).retrieve_records)(self.answer_record)(
            request, *args, **kwargs
        )

    def answer_record(self, request, *args, **kwargs):
        return super().retrieve(request, *args, **kwargs)
