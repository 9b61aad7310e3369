"""PostgreSQL refusing connections: the web server and ``manage.py shell`` say one line and exit.

The database is pointed at a closed port; the processes run as an operator runs them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.own_redis import free_port

ROOT = Path(__file__).resolve().parents[2]
SECRET = "s3cret-password"


@pytest.fixture
def database_down() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    env["DATABASE_URL"] = f"postgres://scholar:{SECRET}@127.0.0.1:{free_port()}/scholar"
    env["DEBUG"] = "true"
    return env


def _errors(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error: ")]


def _gunicorn(env: dict, *args: str) -> subprocess.CompletedProcess:
    gunicorn = Path(sys.executable).with_name("gunicorn")
    return subprocess.run(
        [
            str(gunicorn),
            "--workers",
            "3",
            "--bind",
            f"127.0.0.1:{free_port()}",
            *args,
            "config.wsgi:application",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_web_server_says_one_line_and_exits_when_the_database_is_down(database_down):
    result = _gunicorn(database_down)  # reads gunicorn.conf.py: services checked once, first
    assert result.returncode != 0
    errors = _errors(result.stderr)
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith("error: DATABASE_URL: cannot connect to the database")
    assert "Booting worker" not in result.stderr  # no worker was started at all
    assert SECRET not in result.stderr + result.stdout


def test_a_worker_that_cannot_reach_the_database_stops_gunicorn(database_down, tmp_path):
    # Without the start-up hook (another config file) each worker checks as it loads the
    # site, and exits with gunicorn's boot-error code: the arbiter stops, it does not
    # start the worker again and again.
    bare = tmp_path / "bare.conf.py"
    bare.write_text("")
    # One worker: when several fail to boot at the same instant, gunicorn's own arbiter can
    # trip over their exits while halting, which is gunicorn's race, not what is tested here.
    result = _gunicorn(database_down, "--config", str(bare), "--workers", "1")
    assert result.returncode == 3, result.stderr
    assert "Worker failed to boot" in result.stderr
    errors = _errors(result.stderr)
    assert len(errors) == 1, result.stderr
    assert all(e.startswith("error: DATABASE_URL: cannot connect") for e in errors)


def test_manage_py_shell_says_the_same_line(database_down):
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", "print('reached the shell')"],
        cwd=ROOT,
        env=database_down,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "reached the shell" not in result.stdout
    assert "Traceback" not in result.stderr
    errors = _errors(result.stderr)
    assert len(errors) == 1
    assert errors[0].startswith("error: DATABASE_URL: cannot connect to the database")
