"""A deterministic synthetic corpus in the OpenAlex snapshot format (one Work per JSON line).

This is for load tests and benchmarks. The records are fake on purpose:

- names are built from syllables;
- work, author, institution and venue ids are in reserved ranges (``W8…``, ``A8…``,
  ``I8…``, ``S8…``, ``T8…``) that OpenAlex has not used so far;
- DOIs use the Crossref test prefix ``10.5555``;
- arXiv numbers are 90000 and up, which no month has reached;
- ORCID iDs are in the ``0009-8…`` block, well beyond the iDs ORCID has issued so far.
  Their checksums are valid.

Only the domain > field > subfield taxonomy is OpenAlex's own, so that topic-based metrics
behave as they do on real data.

The shape of the network is what a benchmark needs:

- Author productivity follows a Pareto law, so a few authors hold many authorships.
- Teams have 1 to 12 members and are mostly small.
- Co-authors are drawn from the lead author's community (a small group of authors), so the
  same pairs meet again.
- Each community has its own topic list, and its works draw topics from it by a Zipf law.

Everything comes from one ``random.Random(seed)``: the same arguments give the same
works, byte for byte. There is no clock. Dates come from the seed too.

``CorpusGenerator.works()`` is a generator. Only the author, institution, venue and topic
pools are kept in memory, never the works, so a million-work corpus streams to disk.
"""

from devtools.corpus.files import default_path, main, write_corpus
from devtools.corpus.generator import CorpusGenerator, CorpusStats, generate_works
from devtools.corpus.vocabulary import (
    REQUIRED_KEYS,
    inverted_index,
    orcid_check_digit,
    synthetic_orcid,
    synthetic_ror,
)

__all__ = [
    "REQUIRED_KEYS",
    "CorpusGenerator",
    "CorpusStats",
    "default_path",
    "generate_works",
    "inverted_index",
    "main",
    "orcid_check_digit",
    "synthetic_orcid",
    "synthetic_ror",
    "write_corpus",
]
