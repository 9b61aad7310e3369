"""How the API reads a request: its body (parsers) and the format it asks for.

DRF reads these classes while defining its APIView, so this module imports
nothing of ``rest_framework.views`` (nor ``config.api``, which does).

The standard library's JSON decoder recurses once per nested array or object,
so a body of a hundred thousand ``[`` raises RecursionError, which DRF's parser
does not catch (it catches ValueError): the request ended as a 500. A body
nested past what the decoder can read is a malformed body, answered 400.
"""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import NotAcceptable, ParseError
from rest_framework.negotiation import DefaultContentNegotiation


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None


class ContentNegotiation(DefaultContentNegotiation):
    """DRF's negotiation, answering 406 (not 404) to a ``?format=`` no renderer has."""

    def filter_renderers(self, renderers, format):
        kept = [renderer for renderer in renderers if renderer.format == format]
        if not kept:
            raise NotAcceptable(f"This API answers JSON only, not {format!r}.")
        return kept
