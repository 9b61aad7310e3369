from types import SimpleNamespace

from django.core.cache import cache

from config.tasklocks import run_once


def _task(task_id, eager=False):
    return SimpleNamespace(request=SimpleNamespace(is_eager=eager, id=task_id))


def test_a_second_run_is_refused_while_the_first_holds_the_lock():
    with run_once(_task("one"), "test:lock", timeout=60) as first:
        assert first
        with run_once(_task("two"), "test:lock", timeout=60) as second:
            assert not second
        assert cache.get("test:lock") == "one"
    assert cache.get("test:lock") is None


def test_the_lock_is_freed_when_the_run_fails():
    try:
        with run_once(_task("one"), "test:lock", timeout=60):
            raise RuntimeError("the task failed")
    except RuntimeError:
        pass
    with run_once(_task("two"), "test:lock", timeout=60) as ours:
        assert ours


def test_an_inline_run_takes_no_lock():
    cache.add("test:lock", "a worker", timeout=60)
    with run_once(_task(None, eager=True), "test:lock", timeout=60) as ours:
        assert ours
    assert cache.get("test:lock") == "a worker"
    cache.delete("test:lock")
