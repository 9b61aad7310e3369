"""Request body parsers for the API: DRF's, made safe against hostile nesting.

The standard library's JSON decoder recurses once per nested array or object,
so a body of a hundred thousand ``[`` raises RecursionError, which DRF's parser
does not catch (it catches ValueError): the request ended as a 500. A body
nested past what the decoder can read is a malformed body, answered 400.
"""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None
