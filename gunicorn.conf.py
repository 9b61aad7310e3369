"""gunicorn reads this file from the working directory: its services are checked once, first.

With the database or Redis unreachable the master says one line and exits,
instead of starting workers that fail and are restarted forever.
"""


def on_starting(server) -> None:
    import os

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
