from django.core.management.base import CommandError

from catalogue.models import Source
from ingestion.management.commands._importing import ImportCommand


class Command(ImportCommand):
    help = "Import works from arXiv by author query, id list, or category and date range."

    def add_arguments(self, parser):
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument("--query", help='An arXiv search query, e.g. "au:del_maestro".')
        group.add_argument("--id", dest="ids", action="append", help="An arXiv id (repeatable).")
        group.add_argument("--category", help="An arXiv category such as cs.LG (with --from/--to).")
        parser.add_argument("--from", dest="date_from", help="First submission date, YYYY-MM-DD.")
        parser.add_argument("--to", dest="date_to", help="Last submission date, YYYY-MM-DD.")

    def handle(self, *args, query, ids, category, date_from, date_to, **options):
        if query:
            kind, parameters = "query", {"query": query}
        elif ids:
            kind, parameters = "ids", {"ids": ids}
        else:
            if not (date_from and date_to):
                raise CommandError("--category needs --from and --to (YYYY-MM-DD).")
            kind = "category"
            parameters = {"category": category, "from": date_from, "to": date_to}
        self.run_import(source=Source.ARXIV, kind=kind, parameters=parameters)
