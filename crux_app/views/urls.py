from django.urls import path

from . import audit, collections, freshness, jobs, upload, upload_replace, workspaces
from .favicon import FaviconView
from .home import HomeView

urlpatterns = [
    path("", HomeView.as_view(), name="home"),
    path("favicon.ico", FaviconView.as_view(), name="favicon"),
    *collections.urlpatterns,
    *freshness.urlpatterns,
    *audit.urlpatterns,
    *upload.urlpatterns,
    *upload_replace.urlpatterns,
    *jobs.urlpatterns,
    *workspaces.urlpatterns,
]
