from catalogue.models import Source
from ingestion.management.commands._importing import ImportCommand


class Command(ImportCommand):
    help = (
        "Import from OpenAlex by author id, ORCID, DOI list or works filter; "
        "--search lists the authors of a name to choose from."
    )

    def add_arguments(self, parser):
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument("--author", help="An OpenAlex author id, e.g. A5023888391.")
        group.add_argument("--orcid", help="An ORCID iD.")
        group.add_argument("--doi", dest="dois", action="append", help="A DOI (repeatable).")
        group.add_argument(
            "--filter",
            dest="filters",
            action="append",
            help="A works filter key:value (repeatable).",
        )
        group.add_argument("--search", help="A name: list matching authors, import nothing.")

    def handle(self, *args, author, orcid, dois, filters, search, **options):
        if search:
            return self.list_candidates(search)
        if author:
            kind, parameters = "author", {"id": author}
        elif orcid:
            kind, parameters = "orcid", {"orcid": orcid}
        elif dois:
            kind, parameters = "dois", {"dois": dois}
        else:
            kind, parameters = "filter", {"filter": dict(f.split(":", 1) for f in filters)}
        self.run_import(source=Source.OPENALEX, kind=kind, parameters=parameters)

    def list_candidates(self, name: str) -> None:
        from ingestion.sources.openalex.fetching import search_authors

        for candidate in search_authors(name):
            topics = ", ".join(candidate.get("topics") or []) or "no topics"
            self.stdout.write(
                f"{candidate['id']}  {candidate['display_name']}  "
                f"({candidate.get('institution') or 'no institution'}; "
                f"{candidate.get('works_count') or 0} works; {topics})"
            )
