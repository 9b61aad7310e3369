#!/usr/bin/env python
import os
import sys

# Commands that serve or process requests check their services first, so a
# wrong DATABASE_URL or REDIS_URL is one line naming it rather than a traceback.
SERVICE_COMMANDS = {
    "runserver",
    "shell",
    "migrate",
    "demo",
    "import_file",
    "import_openalex",
    "import_arxiv",
}


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from config.startup import check_services, run_guarded

    def run() -> None:
        import django
        from django.core.management import execute_from_command_line

        django.setup()
        if len(sys.argv) > 1 and sys.argv[1] in SERVICE_COMMANDS:
            check_services()
        execute_from_command_line(sys.argv)

    run_guarded(run)


if __name__ == "__main__":
    main()
