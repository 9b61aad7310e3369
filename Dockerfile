# Scholar Pages: one image for the web server, the Celery worker and Celery beat.
# The default command serves the site with gunicorn; docker-compose.yml gives
# the worker and beat their own commands.

FROM python:3.11-slim

# WEB_CONCURRENCY is gunicorn's worker count (override it at run time).
# DEBUG=false is the safe default: the image will not start without SECRET_KEY.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=config.settings \
    WEB_CONCURRENCY=3 \
    DEBUG=false

WORKDIR /app

RUN groupadd --system app \
    && useradd --system --gid app --home-dir /app --no-create-home --shell /usr/sbin/nologin app

# Dependencies first so code changes do not reinstall them: the lock file
# (every package pinned with its hashes, which pip checks; `make lock` writes
# it from pyproject.toml), then the project itself without dependencies. The
# project declares no packages of its own.
# README.md is optional here (the glob lets the COPY succeed without it).
COPY requirements ./requirements
RUN pip install -r requirements/base.txt
COPY pyproject.toml README.md* ./
RUN pip install --no-deps . \
    && rm -rf build ./*.egg-info

# The application code. Copied by name so a local .venv, var/ or .git in the
# build context never ends up in the image.
COPY manage.py gunicorn.conf.py ./
COPY config ./config
COPY catalogue ./catalogue
COPY exports ./exports
COPY search ./search
COPY similarity ./similarity
COPY ingestion ./ingestion
COPY graph ./graph
COPY profiles ./profiles
COPY trust ./trust
COPY curation ./curation
COPY pages ./pages
COPY devtools ./devtools
COPY templates ./templates
COPY static ./static

# Static files are collected into the image (served by WhiteNoise). The key is
# a throwaway that exists only for this command; it is not kept in the image.
RUN DEBUG=false SECRET_KEY=build-only-collectstatic-not-a-secret \
    python manage.py collectstatic --noinput

# var/ is the only place the app writes (e.g. the beat schedule file).
RUN mkdir -p /app/var/media/imports && chown -R app:app /app/var

USER app

EXPOSE 8000

# Whether gunicorn answers at all (/healthz/live); readiness (database, cache,
# broker) is /healthz/ready, which docker-compose.yml asks of the web service.
# The worker and beat containers override or disable it in docker-compose.yml.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-m", "config.healthcheck", "live"]

CMD ["gunicorn", "config.wsgi:application", \
     "--bind", "0.0.0.0:8000", \
     "--access-logfile", "-", \
     "--error-logfile", "-", \
     "--timeout", "60", \
     "--worker-tmp-dir", "/dev/shm"]
