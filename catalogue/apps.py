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
        # The tasks register, for other packages to send them by name.
        from catalogue import lookups, tasks  # noqa: F401

        lookups.register()

        if settings.CELERY_TASK_ALWAYS_EAGER:
            logger.info("REDIS_URL is not set: Celery tasks run inline in this process.")
