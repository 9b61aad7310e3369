# `make run` serves the embedded site; `make test` runs the whole suite;
# `make test-fast` runs it without the browser and page-checker tests.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
HOST ?= 127.0.0.1
PORT ?= 8000
# Test processes (pytest-xdist); TEST_WORKERS=0 runs the suite in this one process.
TEST_WORKERS ?= 2

.PHONY: run test test-fast worker beat lint fmt migrate venv venv-dev checkers clean

$(VENV)/.base: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.dev: $(VENV)/.base pyproject.toml
	$(PIP) install --quiet -e '.[dev]'
	touch $@

venv: $(VENV)/.base
venv-dev: $(VENV)/.dev

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
	$(PY) manage.py demo
	$(PY) manage.py runserver $(HOST):$(PORT)

test: venv-dev checkers
	$(VENV)/bin/pytest -n $(TEST_WORKERS) $(PYTEST_ARGS)

test-fast: venv-dev
	$(VENV)/bin/pytest -n $(TEST_WORKERS) -m "not browser" $(PYTEST_ARGS)

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
