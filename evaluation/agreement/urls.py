"""The agreement page, mounted at the site root by ``crux_app.urls``."""

from evaluation.agreement.views import urlpatterns

__all__ = ["urlpatterns"]
