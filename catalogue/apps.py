import logging

from django.apps import AppConfig
from django.conf import settings

logger = logging.getLogger("publications")


class PublicationsConfig(AppConfig):
    # The records keep their app label, so no table, migration or permission is renamed.
    name = "catalogue"
    label = "publications"
    verbose_name = "Publications"

    def ready(self) -> None:
        # The receivers connect; the tasks register, for the import code to send them by name.
        from curation.home import Queue, queue_register
        from ingestion import tasks  # noqa: F401
        from pages import receivers  # noqa: F401

        queue_register(
            Queue("Import problems open", "publications.ImportProblem", {"status": "open"})
        )
        queue_register(
            Queue("Merge candidates open", "publications.MergeCandidate", {"status": "open"})
        )

        if settings.CELERY_TASK_ALWAYS_EAGER:
            logger.info("REDIS_URL is not set: Celery tasks run inline in this process.")
