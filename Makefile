# `make run` serves the embedded site; `make test` runs the whole suite;
# `make test-fast` runs it without the browser and page-checker tests.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000
# Test processes (pytest-xdist); TEST_WORKERS=0 runs the suite in this one process.
# worksteal: a worker that runs out of tests takes some of another's, so a few
# long tests do not leave one worker running a queue of short ones alone.
TEST_WORKERS ?= 2

.PHONY: run test test-fast worker beat lint fmt migrate venv venv-dev lock lock-upgrade checkers clean

# The virtualenv installs the lock files: every package pinned, with hashes
# (pip checks them), then the project itself without dependencies. A change to
# a lock file reinstalls.
$(VENV)/.base: requirements/base.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -r requirements/base.txt
	$(PIP) install --quiet --no-deps -e .
	touch $@

$(VENV)/.dev: $(VENV)/.base requirements/dev.txt
	$(PIP) install --quiet -r requirements/dev.txt
	touch $@

venv: $(VENV)/.base
venv-dev: $(VENV)/.dev

# `make lock` writes the lock files from pyproject.toml, keeping the pins that
# still fit its ranges; `make lock-upgrade` moves every pin to the newest release
# inside them. One version of each package for Python 3.11 and 3.12 on every
# platform; dev.txt is base.txt plus the dev extra, with the same shared pins.
UV_VERSION := 0.13.9
LOCK_ARGS ?=
UV_COMPILE := $(VENV)/bin/uv pip compile pyproject.toml --quiet --universal \
	--fork-strategy fewest --python-version 3.11 --generate-hashes \
	--custom-compile-command "make lock"

lock:
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet uv==$(UV_VERSION)
	$(UV_COMPILE) $(LOCK_ARGS) -o requirements/base.txt
	$(UV_COMPILE) $(LOCK_ARGS) --extra dev -c requirements/base.txt -o requirements/dev.txt

lock-upgrade: LOCK_ARGS = --upgrade
lock-upgrade: lock

# The validators the suite runs (axe-core, the Nu HTML checker) come from npm.
# --ignore-scripts: vnu-jar's install script would fetch a Java runtime from
# GitHub; the suite uses the machine's own Java 17.
# Without npm the suite still runs; those checks are then skipped with the reason.
node_modules/.installed: package.json package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --ignore-scripts --no-audit --no-fund && touch $@; \
	else \
		echo "npm is not installed: the HTML and accessibility checks will be skipped"; \
	fi

checkers: node_modules/.installed

migrate: venv
	$(PY) manage.py migrate --noinput

run: migrate
	$(PY) manage.py embedded_admin
	$(PY) manage.py demo --address http://$(HOST):$(PORT)
	$(PY) manage.py runserver $(HOST):$(PORT)

test: venv-dev checkers
	$(VENV)/bin/pytest -n $(TEST_WORKERS) --dist worksteal $(PYTEST_ARGS)

test-fast: venv-dev
	$(VENV)/bin/pytest -n $(TEST_WORKERS) --dist worksteal -m "not browser" $(PYTEST_ARGS)

worker: venv
	$(VENV)/bin/celery -A config worker -Q watch,imports,compute --loglevel=info

beat: venv
	$(VENV)/bin/celery -A config beat --loglevel=info

lint: venv-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) manage.py makemigrations --check --dry-run

fmt: venv-dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean:
	rm -rf $(VENV) var staticfiles node_modules
