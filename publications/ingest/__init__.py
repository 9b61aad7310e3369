"""Records -> database: upsert, deduplicate, resolve authors, keep provenance."""

from publications.ingest.author_records import ingest_authors, ingest_institutions
from publications.ingest.hashing import content_hash
from publications.ingest.works import Ahead, BatchResult, ingest_works

__all__ = [
    "Ahead",
    "BatchResult",
    "content_hash",
    "ingest_authors",
    "ingest_institutions",
    "ingest_works",
]
