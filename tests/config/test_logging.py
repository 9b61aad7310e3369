"""Request ids, JSON log lines and error reports, as an operator runs the site.

The log format is read at start-up, so the JSON and text lines are checked in a
child process (``_child`` below) that serves requests with the test client and
writes its log to its own stderr; gunicorn and a Celery worker run as the compose
file runs them. Error reports go to a Sentry-speaking server on 127.0.0.1.
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import re
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace

import pytest
from celery import signals
from django.conf import settings as django_settings
from django.http import HttpResponse, HttpResponseNotFound
from django.urls import path

from config import env, errors, logs
from config.celery import app as celery_app
from tests.own_redis import free_port

ROOT = Path(__file__).resolve().parents[2]
HOSTILE_IDS = [
    'abc\n{"level":"CRITICAL"}',
    "a" * 500,
    "a" * 65,
    "",
    "two words",
    "<script>alert(1)</script>",
    "id\r\nSet-Cookie: sessionid=x",
    "caf\u00e9",
]
FRESH_ID = re.compile(r"[0-9a-f]{32}")
INJECTION = 'said\n{"level":"CRITICAL","message":"forged"}\r\u2028\x1b[31mred\x00'
TEXT_LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) ")
QUEUE = f"logtest-{uuid.uuid4().hex[:8]}"

logger = logging.getLogger("config")


@celery_app.task(name="tests.config.test_logging.log_in_a_task")
def log_in_a_task() -> None:
    logger.warning("inside the task")


def logs_and_answers(request):
    logger.warning("inside the request: %s", request.GET.get("say", ""))
    return HttpResponse("ok")


def answers_not_found(request):
    return HttpResponseNotFound("no such thing")  # Django logs it after the middleware


def fails(request):
    raise RuntimeError("the view failed")


def queues_a_task(request):
    log_in_a_task.apply_async(queue=request.GET.get("queue") or None)
    return HttpResponse("queued")


def plain_error(request):
    return HttpResponse("error", status=500)


handler500 = plain_error
urlpatterns = [
    path("logs/", logs_and_answers),
    path("missing/", answers_not_found),
    path("fails/", fails),
    path("queues/", queues_a_task),
]


class Records(logging.Handler):
    """Keeps the records a logger handles, passed through the site's request-id filter."""

    def __init__(self):
        super().__init__()
        self.records: list[logging.LogRecord] = []
        self.addFilter(logs.RequestIdFilter())

    def emit(self, record):
        self.records.append(record)

    def messages(self) -> dict[str, logging.LogRecord]:
        return {record.getMessage(): record for record in self.records}


@pytest.fixture
def records():
    handler = Records()
    watched = [logging.getLogger(name) for name in ("config", "django.request")]
    for log in watched:
        log.addHandler(handler)
    yield handler
    for log in watched:
        log.removeHandler(handler)


def _child_env(tmp_path: Path, **extra: str) -> dict:
    names = {"DJANGO_SETTINGS_MODULE", "REDIS_URL", "DATABASE_URL"}
    environ = {
        k: v
        for k, v in os.environ.items()
        if k not in names and not k.startswith(("LOG_", "SENTRY_"))
    }
    # As in production (no debug pages), on a database the requests never open.
    environ.update(
        DATABASE_URL=f"sqlite:///{tmp_path / 'child.sqlite3'}",
        DEBUG="false",
        SECRET_KEY="test-only-not-a-secret",
        SECURE_SSL_REDIRECT="false",
    )
    return {**environ, **extra}


def _child() -> None:
    """Serve the requests named on stdin as gunicorn does; print each X-Request-ID answered."""
    import django

    django.setup()
    import sentry_sdk  # after setup: imported here only if the settings started it
    from django.core.wsgi import get_wsgi_application
    from django.test import RequestFactory, override_settings

    application, answers = get_wsgi_application(), []
    with override_settings(ROOT_URLCONF=__name__, ALLOWED_HOSTS=["testserver"]):
        for url, headers in json.load(sys.stdin):
            answered: dict = {}
            environ = RequestFactory().get(url, headers=headers).environ
            body = application(environ, lambda _status, pairs, kept=answered: kept.update(pairs))
            body.close()  # as a server does: the request is finished
            answers.append(answered["X-Request-ID"])
    sentry_sdk.flush(timeout=10)
    print(json.dumps({"answers": answers, "sentry": sentry_sdk.get_client().is_active()}))


def _run_child(environ: dict, requests: list) -> tuple[dict, str]:
    result = subprocess.run(
        [sys.executable, "-c", "from tests.config.test_logging import _child; _child()"],
        input=json.dumps(requests),
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1]), result.stderr


def _json_lines(output: str) -> list[dict]:
    """Every line of ``output`` as one JSON object (fails on any other line)."""
    lines = [line for line in output.splitlines() if line.strip()]
    entries = [json.loads(line) for line in lines]
    assert all(isinstance(entry, dict) for entry in entries), output
    return entries


# The request id -------------------------------------------------------------------------


@pytest.mark.urls(__name__)
def test_every_answer_carries_a_fresh_request_id(client):
    first, second = client.get("/logs/"), client.get("/logs/")
    assert FRESH_ID.fullmatch(first["X-Request-ID"])
    assert FRESH_ID.fullmatch(second["X-Request-ID"])
    assert first["X-Request-ID"] != second["X-Request-ID"]


@pytest.mark.urls(__name__)
@pytest.mark.parametrize("incoming", ["edge-1234", "0af7651916cd43dd8448eb211c80319c", "a.b_c"])
def test_a_plain_incoming_request_id_is_kept(client, incoming):
    assert client.get("/logs/", headers={"X-Request-ID": incoming})["X-Request-ID"] == incoming


@pytest.mark.urls(__name__)
@pytest.mark.parametrize("hostile", HOSTILE_IDS)
def test_a_hostile_incoming_request_id_is_replaced(client, records, hostile):
    response = client.get("/logs/", HTTP_X_REQUEST_ID=hostile)
    assert FRESH_ID.fullmatch(response["X-Request-ID"])
    (record,) = records.records
    assert record.request_id == response["X-Request-ID"]


@pytest.mark.urls(__name__)
def test_records_logged_while_a_request_is_handled_carry_its_id(client, records):
    logged = client.get("/logs/?say=hello", headers={"X-Request-ID": "req-1"})
    missing = client.get("/missing/", headers={"X-Request-ID": "req-2"})
    assert (logged.status_code, missing.status_code) == (200, 404)
    messages = records.messages()
    assert messages["inside the request: hello"].request_id == "req-1"
    assert messages["Not Found: /missing/"].request_id == "req-2"


@pytest.mark.urls(__name__)
def test_records_after_the_request_carry_no_request_id(client, records):
    client.get("/logs/", headers={"X-Request-ID": "req-done"})
    logger.warning("between requests")
    assert records.messages()["between requests"].request_id is None


# Tasks ---------------------------------------------------------------------------------


@pytest.mark.urls(__name__)
def test_a_task_run_for_a_request_logs_its_request_id(client, records):
    client.get("/queues/", headers={"X-Request-ID": "req-task"})
    record = records.messages()["inside the task"]
    assert record.request_id == "req-task"
    assert record.task_id and record.task_id != "req-task"


def test_a_task_queued_by_no_request_is_named_by_its_task_id(records):
    result = log_in_a_task.apply()
    record = records.messages()["inside the task"]
    assert record.request_id == record.task_id == result.id
    assert logs.current_request_id.get() is None  # put back after the task


class _WorkerTask:
    def __init__(self, request):
        self.request = request


@pytest.mark.parametrize(
    "carried, expected",
    [("from-web-1", "from-web-1"), (HOSTILE_IDS[0], "the-task"), (None, "the-task")],
)
def test_a_worker_takes_the_request_id_from_the_message(carried, expected):
    """As a worker sees a message: custom headers are fields of the task's request."""
    task = _WorkerTask(SimpleNamespace(request_id=carried, headers=None))
    signals.task_prerun.send(sender=task, task_id="the-task", task=task, args=(), kwargs={})
    try:
        assert logs.current_request_id.get() == expected
        assert logs.current_task_id.get() == "the-task"
    finally:
        signals.task_postrun.send(sender=task, task_id="the-task", task=task)
    assert logs.current_request_id.get() is None


@pytest.mark.urls(__name__)
def test_a_message_sent_during_a_request_carries_its_id(client):
    if not celery_app.conf.broker_url.startswith("memory://"):
        pytest.skip("sends a message: only to the in-memory broker (a real worker test follows)")
    published = []

    def keep(headers=None, **_kwargs):
        published.append(dict(headers))

    celery_app.conf.task_always_eager = False  # the autouse fixture puts it back
    signals.before_task_publish.connect(keep, weak=False)
    try:
        client.get("/queues/", headers={"X-Request-ID": "req-sent"})
        log_in_a_task.apply_async()  # outside any request: no header
    finally:
        signals.before_task_publish.disconnect(keep)
    assert [h.get("request_id") for h in published] == ["req-sent", None]


@pytest.mark.urls(__name__)
def test_a_real_worker_logs_json_lines_with_the_request_id(client, tmp_path):
    if not django_settings.REDIS_URL:
        pytest.skip("needs Redis as the broker (REDIS_URL)")
    celery = Path(sys.executable).with_name("celery")
    log_file = tmp_path / "worker.log"
    environ = _child_env(tmp_path, LOG_FORMAT="json", REDIS_URL=django_settings.REDIS_URL)
    command = [str(celery), "-A", "config", "worker", "--pool", "solo", "-Q", QUEUE]
    command += ["-I", "tests.config.test_logging", "--without-heartbeat", "--without-gossip"]
    with log_file.open("w") as stderr:
        worker = subprocess.Popen(
            command, cwd=ROOT, env=environ, stdout=subprocess.DEVNULL, stderr=stderr
        )
    try:
        celery_app.conf.task_always_eager = False  # the autouse fixture puts it back
        client.get(f"/queues/?queue={QUEUE}", headers={"X-Request-ID": "req-worker"})
        deadline = time.monotonic() + 60
        while "inside the task" not in log_file.read_text() and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    entries = _json_lines(log_file.read_text())
    (task_entry,) = [e for e in entries if e["message"] == "inside the task"]
    assert task_entry["request_id"] == "req-worker"
    assert any(e["logger"].startswith("celery") for e in entries)  # Celery's own lines too


# Log lines -----------------------------------------------------------------------------


def test_json_lines_name_the_request_and_no_message_breaks_out_of_its_line(tmp_path):
    requests = [
        ["/logs/?say=" + urllib.request.quote(INJECTION), {"X-Request-ID": "req-json"}],
        ["/missing/", {"X-Request-ID": HOSTILE_IDS[0]}],
        ["/fails/", {}],
    ]
    result, stderr = _run_child(_child_env(tmp_path, LOG_FORMAT="json"), requests)
    logged_id, missing_id, failed_id = result["answers"]
    entries = _json_lines(stderr)
    by_message = {entry["message"]: entry for entry in entries}

    said = by_message[f"inside the request: {INJECTION}"]
    assert (said["request_id"], said["level"], said["logger"]) == ("req-json", "WARNING", "config")
    assert not any(entry.get("message") == "forged" for entry in entries)
    assert FRESH_ID.fullmatch(missing_id)
    assert by_message["Not Found: /missing/"]["request_id"] == missing_id
    failed = by_message["Internal Server Error: /fails/"]
    assert failed["request_id"] == failed_id and failed["level"] == "ERROR"
    assert "RuntimeError: the view failed" in failed["exception"]
    for entry in entries:
        assert set(entry) >= {"time", "level", "logger", "message", "request_id"}
        moment = datetime.fromisoformat(entry["time"])
        assert moment.utcoffset() == timedelta(0)
    assert result["sentry"] is False  # no SENTRY_DSN: no reporter


def test_text_lines_stay_as_they_were(tmp_path):
    result, stderr = _run_child(_child_env(tmp_path), [["/logs/?say=plain", {}]])
    (line,) = [line for line in stderr.splitlines() if "inside the request" in line]
    assert TEXT_LINE.match(line) and line.endswith(" WARNING config: inside the request: plain")
    assert logs.logging_config("text", "INFO")["formatters"]["plain"] == {
        "format": "%(asctime)s %(levelname)s %(name)s: %(message)s"
    }


def test_gunicorn_writes_its_own_and_access_lines_as_json(tmp_path):
    port = free_port()
    gunicorn = Path(sys.executable).with_name("gunicorn")
    environ = _child_env(tmp_path, LOG_FORMAT="json")
    command = [str(gunicorn), "--workers", "1", "--bind", f"127.0.0.1:{port}"]
    command += ["--access-logfile", "-", "--error-logfile", "-", "config.wsgi:application"]
    server = subprocess.Popen(
        command, cwd=ROOT, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/healthz/live", headers={"X-Request-ID": "req-gunicorn"}
        )
        answer = _first_answer(request, server)
        assert answer.headers["X-Request-ID"] == "req-gunicorn"
    finally:
        server.terminate()
        stdout, stderr = server.communicate(timeout=30)
    entries = _json_lines(stdout) + _json_lines(stderr)
    (access,) = [e for e in entries if e["logger"] == "gunicorn.access"]
    assert access["request_id"] == "req-gunicorn"
    assert "GET /healthz/live" in access["message"]
    assert any(
        e["logger"] == "gunicorn.error" and "Booting worker" in e["message"] for e in entries
    )


def _first_answer(request, server: subprocess.Popen, wait: float = 60):
    deadline = time.monotonic() + wait
    while True:
        try:
            return urllib.request.urlopen(request, timeout=5)  # noqa: S310 - 127.0.0.1 only
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_log_format_and_sample_rate_refuse_unknown_values(monkeypatch):
    monkeypatch.setenv("LOG_FORMAT", "yaml")
    with pytest.raises(env.SettingError, match="LOG_FORMAT"):
        env.choice("LOG_FORMAT", "text", {"text", "json"})
    for bad in ("2", "-0.1", "nan", "often"):
        monkeypatch.setenv("SENTRY_TRACES_SAMPLE_RATE", bad)
        with pytest.raises(env.SettingError, match="SENTRY_TRACES_SAMPLE_RATE"):
            env.fraction("SENTRY_TRACES_SAMPLE_RATE", 0.0)
    monkeypatch.setenv("SENTRY_TRACES_SAMPLE_RATE", "0.25")
    assert env.fraction("SENTRY_TRACES_SAMPLE_RATE", 0.0) == 0.25


# Error reports -------------------------------------------------------------------------


class _Collector(BaseHTTPRequestHandler):
    bodies: list[bytes] = []

    def do_POST(self):  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        self.bodies.append(body)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *_args):
        pass


@pytest.fixture
def sentry_server():
    _Collector.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _events(bodies: list[bytes]) -> list[dict]:
    events = []
    for body in bodies:
        lines = [line for line in body.split(b"\n") if line.strip()]
        for header, payload in zip(lines[1::2], lines[2::2], strict=False):
            if json.loads(header).get("type") == "event":
                events.append(json.loads(payload))
    return events


def test_no_dsn_starts_no_error_reporter():
    import sentry_sdk

    started = errors.init_sentry(dsn=None, environment=None, release=None, traces_sample_rate=0)
    assert started is False
    assert sentry_sdk.get_client().is_active() is False


def test_an_error_is_reported_with_the_request_id_and_without_secrets(tmp_path, sentry_server):
    port = sentry_server.server_address[1]
    environ = _child_env(
        tmp_path,
        SENTRY_DSN=f"http://publickey@127.0.0.1:{port}/1",
        SENTRY_ENVIRONMENT="staging",
        SENTRY_RELEASE="scholarpages@1.2.3",
    )
    secret_headers = {
        "X-Request-ID": "req-sentry",
        # Not the session cookie: the child's database has no tables to look it up.
        "Cookie": "csrftoken=cookie-secret-value; theme=cookie-secret-value",
        "Authorization": "Token header-secret-value",
    }
    result, _stderr = _run_child(
        environ, [["/fails/?token=query-secret-value&page=2", secret_headers]]
    )
    assert result["sentry"] is True
    events = [e for e in _events(_Collector.bodies) if e.get("exception")]
    (event,) = events
    assert event["exception"]["values"][-1]["value"] == "the view failed"
    assert event["tags"]["request_id"] == "req-sentry" == result["answers"][0]
    assert (event["environment"], event["release"]) == ("staging", "scholarpages@1.2.3")
    sent = b"".join(_Collector.bodies).decode()
    for secret in ("cookie-secret-value", "header-secret-value", "query-secret-value"):
        assert secret not in sent
    assert "page=2" in event["request"]["query_string"]


@pytest.mark.parametrize(
    "url, expected",
    [
        (
            "https://a.example/x?code=abc&state=def&page=2",
            "https://a.example/x?code=[Filtered]&state=[Filtered]&page=2",
        ),
        (
            "https://api.openalex.org/works?api_key=k1&mailto=me%40x.org&per-page=5",
            "https://api.openalex.org/works?api_key=[Filtered]&mailto=[Filtered]&per-page=5",
        ),
        (
            "https://a.example/accounts/confirm-email/MTA:1t2:abc/",
            "https://a.example/accounts/confirm-email/[Filtered]/",
        ),
        (
            "https://a.example/accounts/password/reset/key/1-abc/#frag",
            "https://a.example/accounts/password/reset/key/[Filtered]/",
        ),
    ],
)
def test_urls_in_reports_lose_their_secrets(url, expected):
    assert errors.mask_url(url) == expected


def test_a_report_loses_cookies_headers_bodies_and_breadcrumb_secrets():
    event = {
        "request": {
            "url": "https://a.example/accounts/confirm-email/the-key/",
            "query_string": "token=t&q=x",
            "cookies": {"sessionid": "s"},
            "data": {"password1": "p"},
            "headers": {"Cookie": "c", "Authorization": "a", "User-Agent": "ua"},
        },
        "breadcrumbs": {
            "values": [{"data": {"url": "https://o.example/w", "http.query": "api_key=k"}}]
        },
    }
    token = logs.current_request_id.set("req-event")
    try:
        scrubbed = errors.scrub_event(event, {})
    finally:
        logs.current_request_id.reset(token)
    request = scrubbed["request"]
    assert "cookies" not in request and "data" not in request
    assert request["headers"] == {"User-Agent": "ua"}
    assert request["query_string"] == "token=[Filtered]&q=x"
    assert request["url"].endswith("/confirm-email/[Filtered]/")
    assert scrubbed["breadcrumbs"]["values"][0]["data"]["http.query"] == "api_key=[Filtered]"
    assert scrubbed["tags"] == {"request_id": "req-event"}
