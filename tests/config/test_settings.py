"""Start-up refuses bad settings with one line naming the variable."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "k3v$9!x2pQz7@wLmR4tYb8NcF1hJ6sDgA0eUiO5yTrEwVnBq-mK2",
    "ALLOWED_HOSTS": "scholar.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://scholar.example.org",
}


def manage(*args, **env_overrides):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DEBUG", "SECRET_KEY", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    }
    env.pop("DATABASE_URL", None)
    env["DATABASE_URL"] = f"sqlite:///{ROOT / 'var' / 'settings-test.sqlite3'}"
    env.update(env_overrides)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        ("DEBUG", "maybe", "expected true or false"),
        ("DATABASE_URL", "mysql://db/x", "unsupported database URL"),
        ("DATABASE_URL", "postgres//oops", "unsupported database URL"),
        ("REDIS_URL", "http://127.0.0.1:6379/0", "expected redis://"),
        ("REDIS_URL", "redis://127.0.0.1:port/0", "port"),
        ("CONN_MAX_AGE", "soon", "expected a whole number"),
        ("CSRF_TRUSTED_ORIGINS", "scholar.example.org", "expected origins"),
        ("EMAIL_URL", "pigeon://coop", "unsupported email URL"),
        ("ORCID_CLIENT_ID", "APP-123", "needs both"),
        ("ORCID_BASE_DOMAIN", "orcid.example", "expected one of"),
    ],
)
def test_malformed_setting_stops_startup_naming_the_variable(name, value, expected):
    result = manage("check", **{name: value})
    assert result.returncode != 0
    reported = "ORCID_CLIENT_SECRET" if name == "ORCID_CLIENT_ID" else name  # names what is missing
    assert result.stderr.strip().splitlines()[-1].startswith(f"error: {reported}: ")
    assert expected in result.stderr
    assert "Traceback" not in result.stderr


def test_secret_key_is_required_when_debug_is_off():
    result = manage("check", DEBUG="false")
    assert result.returncode != 0
    assert "error: SECRET_KEY: required when DEBUG is off" in result.stderr


def test_production_values_pass_the_deploy_check():
    result = manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_unreachable_database_is_one_line_naming_the_setting():
    result = manage("migrate", DATABASE_URL="postgres://nobody@127.0.0.1:1/nothing")
    assert result.returncode != 0
    assert "error: DATABASE_URL: cannot connect to the database" in result.stderr
    assert "Traceback" not in result.stderr


def test_unreachable_redis_is_one_line_naming_the_setting():
    result = manage("migrate", REDIS_URL="redis://127.0.0.1:1/0")
    assert result.returncode != 0
    assert "error: REDIS_URL: cannot reach Redis" in result.stderr
    assert "Traceback" not in result.stderr


def test_embedded_default_needs_no_environment():
    result = manage("check")
    assert result.returncode == 0, result.stderr
    assert "Celery tasks run inline" in result.stderr


SECRET = "s3cr:t/p@ss"  # a password a URL parser could misread: it holds ':', '/' and '@'


@pytest.mark.parametrize(
    ("command", "overrides", "masked"),
    [
        (
            "migrate",
            {"DATABASE_URL": f"postgres://scholar:{SECRET}@127.0.0.1:1/nothing"},
            "postgres://scholar:***@127.0.0.1:1/nothing",
        ),
        (
            "migrate",
            {"REDIS_URL": "redis://:hunter2-redis@127.0.0.1:1/0"},
            "redis://:***@127.0.0.1:1/0",
        ),
        (
            "migrate",
            {"REDIS_URL": "redis://default:hunter2-redis@127.0.0.1:port/0"},
            "redis://default:***@127.0.0.1:port/0",
        ),
        (
            "check",
            {"DATABASE_URL": "mysql://scholar:hunter2-db@db/x"},
            "mysql://scholar:***@db/x",
        ),
        (
            "check",
            {"DATABASE_URL": "mysql://scholar@db/x?password=hunter2-query"},
            "password=***",
        ),
        (
            "check",
            {"EMAIL_URL": "pigeon://mail:hunter2-mail@coop"},
            "pigeon://mail:***@coop",
        ),
    ],
)
def test_start_up_errors_mask_passwords_in_service_urls(command, overrides, masked):
    result = manage(command, **overrides)
    assert result.returncode != 0
    assert result.stderr.startswith("error: "), result.stderr
    assert masked in result.stderr
    for secret in (SECRET, "hunter2"):
        assert secret not in result.stderr
        assert secret not in result.stdout


def test_a_password_is_masked_wherever_the_url_is_parsed_or_not():
    from config.env import mask_url, redact

    assert mask_url("postgres://u:p%40ss@h:5432/db") == "postgres://u:***@h:5432/db"
    assert mask_url("redis://h:6379/0") == "redis://h:6379/0"
    assert mask_url("redis://user@h:6379/0") == "redis://user@h:6379/0"
    assert mask_url(f"postgres://u:{SECRET}@h/db") == "postgres://u:***@h/db"
    url = "postgres://u:p%40ss-word@h/db"
    assert "p@ss-word" not in redact("auth failed for p@ss-word and p%40ss-word", url)
