"""The judge report page, mounted at the site root by ``crux_app.urls``."""

from evaluation.judge_report.views import urlpatterns

__all__ = ["urlpatterns"]
