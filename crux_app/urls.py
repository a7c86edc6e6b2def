"""The URL root: admin, accounts, the shared pages, then every project app's ``urls`` module.

Apps are found, not named: a method's folder with a ``urls.py`` is mounted at the site root once
its app is in INSTALLED_APPS.
"""

from importlib import import_module
from importlib.util import find_spec

from django.apps import apps
from django.contrib import admin
from django.urls import include, path

from crux_app.account_setup import project_app_labels


def _app_urls() -> list:
    mounted = []
    for label in project_app_labels():
        name = apps.get_app_config(label).name
        if name == "crux_app" or find_spec(f"{name}.urls") is None:
            continue
        mounted.append(path("", include(import_module(f"{name}.urls"))))
    return mounted


urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("crux_app.views.urls")),
    *_app_urls(),
]
