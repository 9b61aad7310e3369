"""Stand-ins for parts of the import that fail on purpose."""


def fails_on_call(real, number: int, error: BaseException):
    """``real``, except that its call ``number`` (from 1) raises ``error`` instead."""
    calls = {"n": 0}

    def wrapper(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == number:
            raise error
        return real(*args, **kwargs)

    return wrapper
