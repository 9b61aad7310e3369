from django.apps import AppConfig


class TrustConfig(AppConfig):
    name = "trust"

    def ready(self) -> None:
        from trust import panels, receivers  # noqa: F401 - connect the receivers, add the panel
