from django.apps import AppConfig


class TrustConfig(AppConfig):
    name = "trust"

    def ready(self) -> None:
        from trust import receivers  # noqa: F401 - connects the receivers
