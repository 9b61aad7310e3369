from django.apps import AppConfig


class ProfilesConfig(AppConfig):
    name = "profiles"

    def ready(self) -> None:
        from profiles import receivers  # noqa: F401 - connects the receivers
