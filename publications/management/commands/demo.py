from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"


class Command(BaseCommand):
    help = "Load the demo data set (OpenAlex JSON and an arXiv feed) through the real importers."

    def handle(self, *args, **options):
        openalex = sorted((DEMO_DIR / "openalex").glob("*.json"))
        arxiv = sorted((DEMO_DIR / "arxiv").glob("*.atom"))
        # Authors first, then their works; arXiv last, so it merges into the OpenAlex works.
        openalex.sort(key=lambda p: p.name != "authors.json")
        call_command("import_file", *openalex, stdout=self.stdout, stderr=self.stderr)
        call_command("import_file", *arxiv, stdout=self.stdout, stderr=self.stderr)
