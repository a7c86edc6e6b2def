from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The REST API (``/api/v1/``): tokens, routing, schema; methods mount their endpoints
    through ``api.registry``."""

    name = "api"
    label = "api"
    verbose_name = "REST API"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from api import schema  # noqa: F401  (registers the Bearer scheme with drf-spectacular)
