from django.apps import AppConfig


class TrustConfig(AppConfig):
    name = "trust"
