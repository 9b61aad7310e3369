from django.apps import AppConfig
from django.db.models.signals import post_migrate


class ProfilesConfig(AppConfig):
    name = "profiles"

    def ready(self) -> None:
        from config.sites import site_sync
        from profiles import receivers  # noqa: F401 - connects the receivers

        # After the sites framework made its example.com row: the real address.
        post_migrate.connect(site_sync, sender=self, dispatch_uid="config.sites.site_sync")
