import os

from django.core.wsgi import get_wsgi_application

from config.startup import check_services, run_guarded

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = None


def _load() -> None:
    global application
    application = get_wsgi_application()
    check_services()


try:
    run_guarded(_load)
except SystemExit:
    # gunicorn's code for "worker failed to boot": the arbiter stops rather than
    # starting the worker again and again. The one line was written already.
    raise SystemExit(3) from None
