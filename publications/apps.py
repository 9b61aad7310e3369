import logging

from django.apps import AppConfig
from django.conf import settings

logger = logging.getLogger("publications")


class PublicationsConfig(AppConfig):
    name = "publications"

    def ready(self) -> None:
        # The receivers connect; the tasks register, for the import code to send them by name.
        from publications import receivers, tasks  # noqa: F401
        from publications.curation.home import Queue, queue_register

        queue_register(
            Queue("Import problems open", "publications.ImportProblem", {"status": "open"})
        )
        queue_register(
            Queue("Merge candidates open", "publications.MergeCandidate", {"status": "open"})
        )

        if settings.CELERY_TASK_ALWAYS_EAGER:
            logger.info("REDIS_URL is not set: Celery tasks run inline in this process.")
