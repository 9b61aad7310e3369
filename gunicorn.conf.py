"""gunicorn reads this file from the working directory: its services are checked once, first.

With the database or Redis unreachable the master says one line and exits,
instead of starting workers that fail and are restarted forever.
"""

import os

# LOG_FORMAT=json (see config/logs.py): gunicorn's own lines, the access log
# included, are JSON objects too, each access line with the answer's X-Request-ID.
if os.environ.get("LOG_FORMAT", "").strip() == "json":
    logger_class = "config.logs.GunicornLogger"


def on_starting(server) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from config.startup import check_services, run_guarded

    def check() -> None:
        import django
        from django.db import connections

        django.setup()
        try:
            check_services()
        finally:
            connections.close_all()  # workers open their own after the fork

    run_guarded(check)
