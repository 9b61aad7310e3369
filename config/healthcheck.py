"""The container's health probe: ``python -m config.healthcheck live|ready``.

Asks this container's own gunicorn for ``/healthz/live`` (the process answers)
or ``/healthz/ready`` (the database, the cache and the broker answer too) and
exits 0 on a 200, 1 otherwise. It imports no Django, so a probe costs little.

The Host header is the first ``ALLOWED_HOSTS`` entry, so the probe passes
whatever hosts the site is configured for, and ``X-Forwarded-Proto`` keeps
``SECURE_SSL_REDIRECT`` from redirecting it.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request

PATHS = {"live": "/healthz/live", "ready": "/healthz/ready"}


def probe(kind: str, *, port: str | None = None, timeout: float = 5.0) -> bool:
    """Whether this container's site answers ``kind``'s address with a 200."""
    host = os.environ.get("ALLOWED_HOSTS", "").split(",")[0].strip().lstrip(".")
    host = "localhost" if host in ("", "*") else host
    port = port or os.environ.get("PORT", "8000")
    request = urllib.request.Request(  # noqa: S310 (a fixed http address on this host)
        f"http://127.0.0.1:{port}{PATHS[kind]}",
        headers={"Host": host, "X-Forwarded-Proto": "https"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def main(argv: list[str]) -> int:
    kind = argv[1] if len(argv) > 1 else "live"
    if kind not in PATHS:
        print(f"usage: python -m config.healthcheck {'|'.join(PATHS)}", file=sys.stderr)
        return 2
    return 0 if probe(kind) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
