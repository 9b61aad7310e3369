"""BibTeX read back by bibtexparser 2, as plain dicts: what a reference manager sees."""

import bibtexparser
from bibtexparser.middlewares import MonthLongStringMiddleware


def read_bibtex(text: str) -> list[dict]:
    """Every entry as a dict (``ID``, ``ENTRYTYPE`` and its fields; month macros as names).

    A block the parser cannot read fails the test: no entry is quietly dropped.
    """
    library = bibtexparser.parse_string(text, append_middleware=[MonthLongStringMiddleware()])
    assert not library.failed_blocks, [block.raw for block in library.failed_blocks]
    return [
        {"ID": entry.key, "ENTRYTYPE": entry.entry_type}
        | {name.lower(): field.value for name, field in entry.fields_dict.items()}
        for entry in library.entries
    ]
