""" "More like this" and prior similarity, computed over the whole corpus.

Each visible work is compared with every other one on three things, combined
into one score in [0, 1]:

- text: TF-IDF cosine over title (counted twice) and abstract;
- topics: Jaccard overlap of the works' topics;
- authors: Jaccard overlap of the works' authors;
- references: how many works both cite (bibliographic coupling), by OpenAlex
  id whether or not we hold them;
- citers: how many works held here cite both (co-citation).

The two citation counts weigh ``n / (n + CITATION_HALF)``: one shared work
counts a little, a handful nearly fully, however long the reference lists.

The five best matches (score at least ``MIN_SCORE``) are stored as
``WorkSimilarity`` rows with the reasons for each. Each work also gets its
*prior similarity*: the highest text cosine to any work published strictly
before it (a work dated only by year is earlier than another only when its
whole year is). Novelty (publications.metrics) is read from it.

Memory stays bounded however large the corpus: the vectors are sparse, and
scores are computed for ``chunk_rows`` works at a time against the corpus
(one sparse product per chunk), so no corpus-by-corpus matrix ever exists.
"""

from publications.similarity.corpus import Corpus, load_corpus
from publications.similarity.exact import chunk_size
from publications.similarity.scoring import MIN_SCORE, NEIGHBOURS, WEIGHTS, citation_weight
from publications.similarity.services import (
    Outcome,
    authors_of_works,
    similarities_compute_all,
    similarities_refresh,
    similarities_update,
    works_of_authors,
)

__all__ = [
    "MIN_SCORE",
    "NEIGHBOURS",
    "WEIGHTS",
    "Corpus",
    "Outcome",
    "authors_of_works",
    "chunk_size",
    "citation_weight",
    "load_corpus",
    "similarities_compute_all",
    "similarities_refresh",
    "similarities_update",
    "works_of_authors",
]
