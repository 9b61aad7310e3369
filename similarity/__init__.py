""" "More like this" and prior similarity, computed over the whole corpus.

Two works are compared on five things, combined into one score in [0, 1]:

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
whole year is). Novelty (catalogue.novelty) is read from it.

No work is compared with every other: an approximate nearest-neighbour index and
the works it shares the most rare words and links with (``neighbours``) give
each work up to 180 candidates, and the candidates are scored exactly
(``candidates``), so the scores and reasons shown are those of the pair. A full
run costs about n log n. An update for a batch of new works reads the corpus and
takes each new work's candidates from the rare words and links it shares, at the
same cost per work whatever the corpus's size (below 20,000 works it compares
them with every work instead); the lists they enter are merged from what is
stored, not searched again. Reading the corpus
stays linear in its size (keeping it between runs would remove that); imports
and curation ask through a backlog (``similarity.backlog``) and one
run (``similarities_catch_up``) takes every request made before it, so the
batches of a large import share that cost instead of paying it once each. Stored
scores of pairs an update does not touch keep the term weights of their day; a
weekly full build rebases them. Memory is the corpus's sparse rows (twice: by
work and by column) plus one dense vector per work. Prior similarity is read
among the candidates (see ``candidates.prior_among`` for what that misses).
``exact`` keeps the all-pairs computation, against which the benchmark and tests
measure recall.

Modules: ``corpus`` (reading), ``neighbours`` (candidates), ``candidates`` and
``scoring`` (scores and reasons), ``storing`` (writing), ``services`` (what
callers run), ``exact`` (the reference).
"""

from importlib import import_module

# Where each name of the package's face lives. They load on first use, so the package can
# be an installed app (imported before the models are ready).
_FACE = {
    "Corpus": "corpus",
    "load_corpus": "corpus",
    "chunk_size": "exact",
    "MIN_SCORE": "scoring",
    "NEIGHBOURS": "scoring",
    "WEIGHTS": "scoring",
    "citation_weight": "scoring",
    "Outcome": "services",
    "authors_of_works": "services",
    "similarities_catch_up": "services",
    "similarities_compute_all": "services",
    "similarities_refresh": "services",
    "similarities_update": "services",
    "works_of_authors": "services",
}


def __getattr__(name: str):
    if name in _FACE:
        return getattr(import_module(f"similarity.{_FACE[name]}"), name)
    raise AttributeError(f"module 'similarity' has no attribute {name!r}")


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
    "similarities_catch_up",
    "similarities_compute_all",
    "similarities_refresh",
    "similarities_update",
    "works_of_authors",
]
