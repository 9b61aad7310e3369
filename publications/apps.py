import logging

from django.apps import AppConfig
from django.conf import settings

logger = logging.getLogger("publications")


class PublicationsConfig(AppConfig):
    name = "publications"

    def ready(self) -> None:
        from publications import receivers  # noqa: F401 - connects the receivers

        if settings.CELERY_TASK_ALWAYS_EAGER:
            logger.info("REDIS_URL is not set: Celery tasks run inline in this process.")
