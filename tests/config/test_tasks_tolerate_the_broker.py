"""Every task of the site is sent through the task class that survives a broker outage.

A task class of Celery's own (or ``send_task``) raises when Redis does not answer,
which turns the page that sent it into a 500; ``SafeTask`` runs follow-up work in
the sending process instead, and an import waits to be sent.
"""

from __future__ import annotations

import ast
from pathlib import Path

from config.celery import SafeTask
from config.celery import app as celery_app

ROOT = Path(__file__).resolve().parents[2]
APPS = ("config", "graph", "profiles", "publications", "trust")
CANVAS = {"chain", "group", "chord", "send_task"}


def test_every_task_of_the_site_is_a_safe_task():
    celery_app.loader.import_default_modules()
    ours = {name: task for name, task in celery_app.tasks.items() if name.startswith(APPS)}
    assert "publications.tasks.import_run" in ours
    assert {name for name, task in ours.items() if not isinstance(task, SafeTask)} == set()
    waiting = {name for name, task in ours.items() if not task.inline_when_broker_down}
    # An import is sent by dispatch and kept when refused; its parts and their
    # callback are sent by the import's own task on a worker, which is resumed
    # by the watcher when they cannot be sent.
    assert waiting == {
        "publications.tasks.import_run",
        "publications.tasks.import_run_part",
        "publications.tasks.import_run_parts_end",
    }


# The one group of the site: an import's parts with their callback, built from
# tasks that are never run inline when the broker is down.
CANVAS_ALLOWED = {"ingestion/tasks.py chord"}


def test_no_module_sends_tasks_around_the_safe_task():
    """Chains, groups and send_task send on their own terms; only an import's parts use one."""
    found = []
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                name = None
                if (
                    isinstance(node, ast.ImportFrom)
                    and node.module
                    and node.module.startswith("celery")
                ):
                    name = next((a.name for a in node.names if a.name in CANVAS), None)
                elif isinstance(node, ast.Attribute) and node.attr == "send_task":
                    name = node.attr
                if name and f"{path.relative_to(ROOT)} {name}" not in CANVAS_ALLOWED:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}")
    assert found == []
