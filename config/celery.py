"""The Celery application: JSON only, late acks, one task prefetched at a time.

Two queues keep slow imports from starving page-facing work: ``imports`` for
fetching and ingesting records, ``compute`` for metrics, graphs and scores.
"""

import os

from celery import Celery, signals
from celery.schedules import crontab
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    task_ignore_result=True,
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    broker_connection_retry_on_startup=True,
    broker_transport_options={"visibility_timeout": 4 * 3600},
    task_default_queue="compute",
    task_queues={"imports": {}, "compute": {}},
    task_routes={
        "publications.tasks.import_*": {"queue": "imports"},
        "profiles.tasks.refresh_tracked_authors": {"queue": "imports"},
        "graph.tasks.*": {"queue": "compute"},
        "trust.tasks.*": {"queue": "compute"},
    },
    beat_schedule={
        "refresh-tracked-authors": {
            "task": "profiles.tasks.refresh_tracked_authors",
            "schedule": crontab(hour=2, minute=30),
        },
        "recompute-trust-scores": {
            "task": "trust.tasks.recompute_all",
            "schedule": crontab(hour=4, minute=0),
        },
        "send-following-digests": {
            "task": "profiles.tasks.send_digests",
            "schedule": crontab(hour=7, minute=0),
        },
    },
    timezone="UTC",
)
app.autodiscover_tasks(lambda: settings.INSTALLED_APPS)


@signals.worker_init.connect
def check_services_before_work(**_kwargs) -> None:
    from config.startup import StartupError, check_services, fail

    try:
        check_services()
    except StartupError as exc:
        fail(str(exc))
