"""``python -m devtools.corpus``: write a synthetic corpus (see ``--help``)."""

from devtools.corpus.files import main

main()
