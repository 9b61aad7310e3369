from pathlib import Path

from catalogue.models import ImportRun, Source
from ingestion.management.commands._importing import ImportCommand

ARXIV_SUFFIXES = {".xml", ".atom"}


class Command(ImportCommand):
    help = (
        "Import recorded OpenAlex responses (one entity, a list page, snapshot JSON lines, "
        "gzipped or not, VCR cassettes) and arXiv Atom feeds, through the live mappers and ingest."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", type=Path)

    def handle(self, *args, paths, **options):
        arxiv_only = all(p.suffix.lower() in ARXIV_SUFFIXES for p in paths)
        self.run_import(
            source=Source.ARXIV if arxiv_only else Source.OPENALEX,
            kind=ImportRun.Kind.FILE,
            parameters={"paths": [str(p.resolve()) for p in paths]},
        )
