"""The Celery application: JSON only, late acks, one task prefetched at a time.

Two queues keep slow imports from starving page-facing work: ``imports`` for
fetching and ingesting records, ``compute`` for metrics, graphs and scores.
"""

import logging
import os
import reprlib
import threading
import time

from celery import Celery, Task, signals
from celery.schedules import crontab
from django.conf import settings
from kombu.exceptions import OperationalError

# Importing config.logs also connects the signals that carry request ids into tasks.
from config.logs import log_through_django_settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

logger = logging.getLogger("config")

# After the broker failed to take a task, it is not asked again for this many
# seconds, so a page does not wait for a dead broker at every task it sends.
BROKER_RETRY_AFTER = 5.0


class BrokerUnavailable(Exception):
    """The broker did not take a task; the caller keeps the work to send it later."""


class _Broker:
    """Whether the broker took the last task; says so once in the log when that changes."""

    def __init__(self):
        self.down = False
        self.down_until = 0.0
        self.lock = threading.Lock()

    def skipping(self) -> bool:
        return self.down and time.monotonic() < self.down_until

    def failed(self, exc: Exception) -> None:
        with self.lock:
            self.down_until = time.monotonic() + BROKER_RETRY_AFTER
            if self.down:
                return
            self.down = True
        logger.warning(
            "broker: Redis is not taking tasks (%s); follow-up work runs in the sending "
            "process and imports wait to be sent until it answers again",
            type(exc).__name__,
        )

    def answered(self) -> None:
        if not self.down:
            return
        with self.lock:
            self.down = False
        logger.warning("broker: Redis takes tasks again")


broker = _Broker()


def _short_repr() -> reprlib.Repr:
    short = reprlib.Repr()
    short.maxlist = short.maxtuple = short.maxset = short.maxdict = 10
    short.maxstring = short.maxother = 200
    short.maxlevel = 4
    return short


# Celery writes a repr of a task's arguments into its message, for the logs. Its
# own repr walks whole lists: an import batch's follow-up tasks each carry
# thousands of ids, and writing their repr cost more than sending them.
SHORT_REPR = _short_repr()


class SafeTask(Task):
    """A task that does not fail its sender when the broker is down.

    Follow-up work (metrics, graph edges, notifications) runs in the sending
    process instead, so nothing is lost and no page fails. A task that must not
    run there (an import) sets ``inline_when_broker_down = False``: sending it
    raises ``BrokerUnavailable`` and the caller keeps it to send later.
    """

    inline_when_broker_down = True

    def apply_async(self, args=None, kwargs=None, *rest, **options):
        options.setdefault("argsrepr", SHORT_REPR.repr(tuple(args or ())))
        options.setdefault("kwargsrepr", SHORT_REPR.repr(dict(kwargs or {})))
        if self.app.conf.task_always_eager:
            return super().apply_async(args, kwargs, *rest, **options)
        try:
            if broker.skipping():
                raise OperationalError("the broker failed a moment ago")
            result = super().apply_async(args, kwargs, *rest, **options)
        except OperationalError as exc:
            broker.failed(exc)
            if not self.inline_when_broker_down:
                raise BrokerUnavailable(str(exc)) from exc
            return self.apply(args, kwargs)
        broker.answered()
        return result


app = Celery("config", task_cls=SafeTask)
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
    broker_transport_options={"visibility_timeout": 4 * 3600, "socket_connect_timeout": 3},
    task_default_queue="compute",
    # The watcher has a queue of its own: a worker takes from each of its queues in
    # turn, so the watch runs at the next free slot instead of after every compute
    # task already queued (a large import queues many).
    task_queues={"imports": {}, "compute": {}, "watch": {}},
    task_routes={
        "publications.tasks.watch_imports": {"queue": "watch"},
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
        # Imports that wait to be sent are sent; runs whose worker died are resumed.
        "watch-imports": {
            "task": "publications.tasks.watch_imports",
            "schedule": 60.0,  # IMPORT_WATCH_EVERY, read below once settings are loaded
            "options": {"expires": 60.0},
        },
        # Updates leave other pairs' scores as their term weights were; this rebases them.
        "rebuild-similarities": {
            "task": "publications.tasks.compute_similarities",
            "schedule": crontab(hour=3, minute=0, day_of_week=0),
        },
        "send-following-digests": {
            "task": "profiles.tasks.send_digests",
            "schedule": crontab(hour=7, minute=0),
        },
    },
    timezone="UTC",
)
app.autodiscover_tasks(lambda: settings.INSTALLED_APPS)


@app.on_after_configure.connect
def _watch_imports_every(sender, **_kwargs) -> None:
    every = float(settings.IMPORT_WATCH_EVERY)
    entry = sender.conf.beat_schedule["watch-imports"]
    entry["schedule"], entry["options"] = every, {"expires": every}


@app.on_after_configure.connect
def _log_as_settings_say(sender, **_kwargs) -> None:
    # With LOG_FORMAT=json the worker and beat keep settings.LOGGING (JSON lines)
    # instead of putting Celery's own text format on the root logger.
    if settings.LOG_FORMAT == "json":
        signals.setup_logging.connect(log_through_django_settings, weak=False)


@signals.worker_init.connect
def check_services_before_work(**_kwargs) -> None:
    from config.startup import StartupError, check_services, fail

    try:
        check_services()
    except StartupError as exc:
        fail(str(exc))
