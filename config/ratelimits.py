"""Rate limits that remember when they lift, so a refusal can say when to come back.

``ratelimit`` is django-ratelimit's decorator with the same arguments, the same
counters and cache keys; when it refuses a request it also leaves the seconds
until the limit's window ends on the request, for the 429 page and API answer.
"""

from __future__ import annotations

import math
from functools import wraps

from django_ratelimit import ALL
from django_ratelimit.core import get_usage
from django_ratelimit.exceptions import Ratelimited

# What a 429 says when the limit's window is not known (a limit outside this module).
DEFAULT_RETRY_AFTER = 60


def ratelimit(group=None, key=None, rate=None, method=ALL, block=True):
    def decorator(fn):
        @wraps(fn)
        def _wrapped(request, *args, **kwargs):
            usage = get_usage(
                request, group=group, fn=fn, key=key, rate=rate, method=method, increment=True
            )
            limited = bool(usage and usage["should_limit"])
            request.limited = limited or getattr(request, "limited", False)
            if limited:
                request.ratelimit_retry_after = max(1, int(usage["time_left"]))
                if block:
                    raise Ratelimited()
            return fn(request, *args, **kwargs)

        return _wrapped

    return decorator


def retry_after(request) -> int:
    """Seconds until the limit that refused this request lifts."""
    return getattr(request, "ratelimit_retry_after", None) or DEFAULT_RETRY_AFTER


def wait_phrase(seconds: int) -> str:
    """When to come back, in words: "in about 40 minutes", "in about 2 hours"."""
    if seconds <= 60:
        return "in a minute"
    minutes = math.ceil(seconds / 60)
    if minutes < 90:
        return f"in about {minutes} minutes"
    hours = round(seconds / 3600)
    if hours < 36:
        return f"in about {hours} hours"
    days = round(seconds / 86400)
    return f"in about {days} days"
