import pytest

from catalogue import signals
from config.celery import app as celery_app


@pytest.fixture
def follow_ups_queued():
    """The work an import asks for after each batch (figures, kept pages, "More like
    this") is queued for a worker, not done inline: a test of how batches are
    written, in one process or several, need not wait for it. The queues are
    emptied afterwards."""
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        yield
    finally:
        celery_app.conf.task_always_eager = previous
        celery_app.control.purge()


@pytest.fixture
def follow_ups_unheard(monkeypatch):
    """No app hears what an import changed: the graph, trust, pages, "More like this"
    and notifications are not brought up to date. For tests that run the import's own
    tasks inline and are about how its parts are written, not what follows."""
    for signal in (signals.authors_changed, signals.metrics_refreshed):
        monkeypatch.setattr(signal, "receivers", [])
        monkeypatch.setattr(signal, "sender_receivers_cache", {})
