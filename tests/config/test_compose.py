"""The container setup: docker-compose.yml and the Dockerfile agree with the code.

No Docker is needed: the files are parsed and checked against the settings
module and the Celery configuration they are meant to drive.
"""

from __future__ import annotations

import json
import re
import shlex
from functools import cache
from pathlib import Path

import pytest
import yaml

from config import env

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
SETTINGS_FILE = ROOT / "config" / "settings.py"

SERVICES = ("postgres", "redis", "migrate", "web", "proxy", "worker", "beat")
APP_SERVICES = ("web", "worker", "beat")


@cache
def compose() -> dict:
    return yaml.safe_load(COMPOSE_FILE.read_text())


def service(name: str) -> dict:
    return compose()["services"][name]


def command_text(name: str) -> str:
    """A service's command as one shell-like string, whichever form it uses."""
    command = service(name).get("command")
    assert command, f"{name} has no command"
    return command if isinstance(command, str) else " ".join(command)


def command_words(name: str) -> list[str]:
    command = service(name)["command"]
    return shlex.split(command) if isinstance(command, str) else list(command)


def healthcheck_text(name: str) -> str:
    test = service(name)["healthcheck"]["test"]
    return test if isinstance(test, str) else " ".join(test)


@cache
def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs with comments dropped and continuations joined."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for line in DOCKERFILE.read_text().splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        full = pending + stripped
        pending = ""
        keyword, _, arguments = full.partition(" ")
        instructions.append((keyword.upper(), arguments.strip()))
    assert not pending, "the Dockerfile ends inside a continued line"
    return instructions


def instruction_args(keyword: str) -> list[str]:
    return [arguments for kind, arguments in dockerfile_instructions() if kind == keyword]


def default_command() -> list[str]:
    commands = instruction_args("CMD")
    assert commands, "the Dockerfile has no CMD"
    last = commands[-1]
    return json.loads(last) if last.startswith("[") else shlex.split(last)


# docker-compose.yml


def test_compose_defines_every_service():
    assert set(SERVICES) <= set(compose()["services"])


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_service_builds_the_local_dockerfile(name):
    build = service(name).get("build")
    assert build is not None, f"{name} does not build the image"
    if isinstance(build, str):
        context, dockerfile = build, "Dockerfile"
    else:
        context, dockerfile = build.get("context", "."), build.get("dockerfile", "Dockerfile")
    assert (ROOT / context).resolve() == ROOT
    assert (ROOT / context / dockerfile).resolve() == DOCKERFILE


def test_migrations_run_once_in_a_service_of_their_own():
    assert command_words("migrate") == ["python", "manage.py", "migrate", "--noinput"]
    assert service("migrate").get("restart") == "no"
    for name in APP_SERVICES:
        assert "migrate" not in command_text(name), f"{name} migrates in every replica"


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_service_starts_only_after_migrations_succeeded(name):
    condition = service(name)["depends_on"].get("migrate", {}).get("condition")
    assert condition == "service_completed_successfully"


def test_web_runs_gunicorn_on_port_8000():
    text = command_text("web")
    assert re.search(r"\bgunicorn\s+config\.wsgi:application\b", text), text
    assert "0.0.0.0:8000" in text


def _published(port) -> tuple[str, str]:
    """(host address, host port) of a Compose port entry; an empty address means every one."""
    if isinstance(port, dict):
        return str(port.get("host_ip", "")), str(port.get("published", ""))
    parts = str(port).split(":")
    if len(parts) == 1:
        return "", ""  # a container port only: Docker picks a random host port on every address
    if len(parts) == 2:
        return "", parts[0]
    return ":".join(parts[:-2]), parts[-2]


def test_gunicorn_is_not_published_on_every_address():
    for port in service("web").get("ports", []):
        address, _ = _published(port)
        assert address in {"127.0.0.1", "[::1]", "::1"}, f"web publishes {port!r} publicly"


def test_the_proxy_publishes_port_8000_and_forwards_to_gunicorn():
    proxy = service("proxy")
    assert ("", "8000") in [_published(port) for port in proxy.get("ports", [])]
    command = proxy["command"] if isinstance(proxy["command"], str) else " ".join(proxy["command"])
    assert re.search(r"reverse[-_]proxy\b.*\bweb:8000\b", command), command
    assert proxy["depends_on"]["web"]["condition"] == "service_healthy"


def test_the_app_trusts_exactly_the_one_proxy_in_front(monkeypatch):
    value = service("web")["environment"]["TRUSTED_PROXY_COUNT"]
    monkeypatch.setenv("TRUSTED_PROXY_COUNT", re.sub(r"\$\{\w+:-(\w+)\}", r"\1", value))
    assert env.integer("TRUSTED_PROXY_COUNT", 0) == 1


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_service_uses_the_postgres_service_as_its_database(name, monkeypatch):
    monkeypatch.setenv("DATABASE_URL", service(name)["environment"]["DATABASE_URL"])
    settings = env.database("DATABASE_URL", "sqlite:///unused.sqlite3")
    assert settings["ENGINE"] == "django.db.backends.postgresql"
    assert settings["HOST"] == "postgres"
    postgres_env = service("postgres")["environment"]
    assert settings["NAME"] == postgres_env["POSTGRES_DB"]
    assert settings["USER"] == postgres_env["POSTGRES_USER"]
    assert settings["PASSWORD"] == postgres_env["POSTGRES_PASSWORD"]


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_service_uses_the_redis_service_as_its_broker(name, monkeypatch):
    url = service(name)["environment"]["REDIS_URL"]
    monkeypatch.setenv("REDIS_URL", url)
    assert env.redis_url("REDIS_URL") == url
    assert re.match(r"^redis://redis(:6379)?/\d+$", url), url


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_service_runs_with_debug_off(name, monkeypatch):
    value = service(name)["environment"]["DEBUG"]
    assert isinstance(value, str), "quote DEBUG so Compose passes the word through"
    monkeypatch.setenv("DEBUG", value)
    assert env.boolean("DEBUG", True) is False


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_service_requires_secret_key_from_the_environment(name):
    value = service(name)["environment"]["SECRET_KEY"]
    # ${VAR:?message} makes Compose refuse to start when SECRET_KEY is unset or empty.
    assert re.fullmatch(r"\$\{SECRET_KEY:\?[^}]+\}", value), value


def test_every_compose_environment_variable_is_read_by_settings():
    source = SETTINGS_FILE.read_text()
    names = set()
    for name in APP_SERVICES:
        names |= set(service(name)["environment"])
    assert names
    unread = sorted(name for name in names if not re.search(rf"[\"']{name}[\"']", source))
    assert not unread, f"config/settings.py never reads {unread}"


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_service_waits_for_healthy_postgres_and_redis(name):
    depends_on = service(name).get("depends_on")
    assert isinstance(depends_on, dict), f"{name} needs the long depends_on form"
    for dependency in ("postgres", "redis"):
        assert depends_on.get(dependency, {}).get("condition") == "service_healthy"


@pytest.mark.parametrize("name", ("postgres", "redis", "web", "worker"))
def test_service_has_a_healthcheck(name):
    healthcheck = service(name).get("healthcheck")
    assert healthcheck, f"{name} has no healthcheck"
    assert not healthcheck.get("disable", False)
    assert healthcheck.get("test")


def test_healthchecks_probe_the_right_thing():
    assert "pg_isready" in healthcheck_text("postgres")
    assert "redis-cli ping" in healthcheck_text("redis")
    assert "config.healthcheck ready" in healthcheck_text("web")
    assert "inspect ping" in healthcheck_text("worker")


def test_worker_consumes_every_celery_queue():
    from config.celery import app

    words = command_words("worker")
    assert words[:4] == ["celery", "-A", "config", "worker"]
    queues = None
    for index, word in enumerate(words):
        if word in ("-Q", "--queues"):
            queues = words[index + 1]
        elif word.startswith("--queues="):
            queues = word.split("=", 1)[1]
    assert queues, "the worker names no queues, so it would consume only the default"
    assert set(queues.split(",")) == set(app.conf.task_queues)


SCALED_SERVICES = ("web", "worker")  # docker compose up --scale web=2 --scale worker=3


@pytest.mark.parametrize("name", SCALED_SERVICES)
def test_scaled_service_has_no_fixed_name_and_no_host_port(name):
    """Replicas each get a name of their own; two cannot bind the same host port."""
    spec = service(name)
    assert "container_name" not in spec, f"{name} replicas would share one container name"
    assert not spec.get("ports"), f"{name} replicas would each publish the same host port"
    assert "hostname" not in spec, f"{name} replicas would share one hostname"


def test_worker_replicas_are_told_apart_by_celery():
    """Each worker replica names itself after its container, so pings and tasks tell them apart."""
    assert "-n" not in command_words("worker") or "%h" in command_text("worker")
    assert "$$HOSTNAME" in healthcheck_text("worker")


def test_replicas_share_the_uploaded_import_files():
    """A part of an import runs on whichever worker takes it: they all read the same files."""
    from django.conf import settings

    mounts = {}
    for name in ("web", "worker"):
        mounts[name] = {
            volume.split(":")[0]: volume.split(":")[1] for volume in service(name)["volumes"]
        }
    assert mounts["web"] == mounts["worker"]
    assert mounts["worker"]["import-uploads"] == "/app/" + str(
        settings.IMPORT_UPLOAD_DIR.relative_to(settings.BASE_DIR)
    )


def test_beat_runs_once():
    """Two schedulers would send every periodic task twice: beat is never scaled."""
    replicas = service("beat").get("deploy", {}).get("replicas", 1)
    assert int(replicas) == 1


def test_beat_runs_celery_beat_for_this_app():
    assert command_words("beat")[:4] == ["celery", "-A", "config", "beat"]


# Dockerfile


def test_the_image_checks_that_the_process_answers():
    (check,) = instruction_args("HEALTHCHECK")
    assert re.search(r"CMD \[\"python\", \"-m\", \"config.healthcheck\", \"live\"\]", check)


def test_the_containers_without_an_address_do_not_inherit_the_web_check():
    assert service("beat")["healthcheck"]["disable"] is True
    assert service("migrate")["healthcheck"]["disable"] is True
    assert "inspect ping" in healthcheck_text("worker")


def test_dockerfile_starts_from_python_311_slim():
    assert instruction_args("FROM")[0].startswith("python:3.11-slim")


def test_dockerfile_exposes_port_8000():
    exposed = " ".join(instruction_args("EXPOSE")).split()
    assert "8000" in exposed or "8000/tcp" in exposed


def test_dockerfile_runs_gunicorn_with_the_project_wsgi_application():
    command = default_command()
    assert command[0] == "gunicorn"
    assert "config.wsgi:application" in command
    assert "0.0.0.0:8000" in " ".join(command)


def test_dockerfile_runs_as_a_non_root_user():
    users = instruction_args("USER")
    assert users, "the image runs as root"
    assert users[-1].split(":")[0] not in ("root", "0")


def test_dockerfile_collects_static_files_without_baking_in_a_secret_key():
    runs = instruction_args("RUN")
    assert any("collectstatic" in run and "SECRET_KEY=" in run for run in runs)
    for kind in ("ENV", "ARG"):
        for arguments in instruction_args(kind):
            assert "SECRET_KEY" not in arguments, f"{kind} would keep SECRET_KEY in the image"


def test_dockerfile_copies_every_project_directory_the_settings_use():
    from django.conf import settings

    needed = {"manage.py", "config"}
    needed |= {app for app in settings.INSTALLED_APPS if (ROOT / app).is_dir()}
    needed |= {Path(path).name for path in settings.STATICFILES_DIRS}
    needed |= {Path(path).name for template in settings.TEMPLATES for path in template["DIRS"]}
    copied = set()
    for arguments in instruction_args("COPY"):
        words = [word for word in shlex.split(arguments) if not word.startswith("--")]
        copied |= {source.rstrip("/") for source in words[:-1]}
    if "." in copied:
        return
    missing = sorted(needed - copied)
    assert not missing, f"the Dockerfile does not copy {missing}"
