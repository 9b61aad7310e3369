from django.apps import AppConfig
from django.db.models.signals import post_migrate


class ProfilesConfig(AppConfig):
    name = "profiles"

    def ready(self) -> None:
        from config.sites import site_sync
        from curation.home import Queue, queue_register
        from profiles import receivers  # noqa: F401 - connects the receivers
        from profiles.models import Claim, Report

        queue_register(
            Queue("Claims pending review", "profiles.Claim", {"status": Claim.Status.PENDING})
        )
        queue_register(
            Queue("Claims disputed", "profiles.Claim", {"status": Claim.Status.DISPUTED})
        )
        queue_register(Queue("Reports open", "profiles.Report", {"status": Report.Status.OPEN}))

        # After the sites framework made its example.com row: the real address.
        post_migrate.connect(site_sync, sender=self, dispatch_uid="config.sites.site_sync")
