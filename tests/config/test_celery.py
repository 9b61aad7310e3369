"""Celery is set up for reliable work: JSON only, late acks, one task at a time."""

import pytest
from celery.signals import before_task_publish
from django.conf import settings

from catalogue import tasks
from config.celery import app


def test_only_json_is_accepted():
    assert app.conf.task_serializer == "json"
    assert list(app.conf.accept_content) == ["json"]


def test_tasks_are_acknowledged_late_and_prefetched_one_at_a_time():
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.worker_prefetch_multiplier == 1


def test_tasks_have_time_limits():
    assert app.conf.task_time_limit == settings.CELERY_TASK_TIME_LIMIT
    assert 0 < app.conf.task_soft_time_limit < app.conf.task_time_limit


def test_imports_compute_and_the_watcher_have_their_own_queues():
    assert set(app.conf.task_queues) == {"imports", "compute", "watch"}
    assert app.conf.task_default_queue == "compute"
    assert app.amqp.router.route({}, "publications.tasks.import_run")["queue"].name == "imports"
    assert app.amqp.router.route({}, "publications.tasks.watch_imports")["queue"].name == "watch"
    assert (
        app.amqp.router.route({}, "publications.tasks.compute_similarities")["queue"].name
        == "compute"
    )


def test_broker_follows_redis_url():
    if settings.REDIS_URL:
        assert app.conf.broker_url == settings.REDIS_URL
    else:
        assert settings.CELERY_TASK_ALWAYS_EAGER is True


def test_a_message_carries_a_short_repr_of_long_arguments():
    """The repr Celery logs of a task's arguments is cut short, not walked whole."""
    if not app.conf.broker_url.startswith("memory://"):
        pytest.skip("sends a message: only to the in-memory broker")
    published = []

    def keep(headers=None, **_kwargs):
        published.append(headers)

    app.conf.task_always_eager = False  # the autouse fixture puts it back after the test
    before_task_publish.connect(keep, weak=False)
    try:
        tasks.refresh_author_metrics.delay(list(range(5000)))
    finally:
        before_task_publish.disconnect(keep)
    (headers,) = published
    assert headers["argsrepr"].startswith("([0, 1, 2, 3")
    assert len(headers["argsrepr"]) < 100
