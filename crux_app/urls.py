"""The URL root: admin, accounts, the shared pages, then every project app's ``urls`` module.

Apps are found, not named: a method's folder with a ``urls.py`` is mounted at the site root once
its app is in INSTALLED_APPS.

The error pages are ``templates/404.html``, ``403.html`` and ``500.html`` (Django's default
handlers); a locked-out login gets ``registration/lockout.html`` from django-axes.
"""

from importlib import import_module
from importlib.util import find_spec
from urllib.parse import urlsplit

from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.views import PasswordResetView
from django.http import HttpResponse, HttpResponseRedirect
from django.urls import include, path

from crux_app.account_setup import project_app_labels


class SiteURLPasswordResetView(PasswordResetView):
    """Password reset whose e-mailed link starts with ``SITE_URL``, never with the request's
    Host header (Django's view takes the domain and scheme from the request)."""

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        site = urlsplit(settings.SITE_URL)
        form.save(
            domain_override=site.netloc,
            use_https=site.scheme == "https",
            token_generator=self.token_generator,
            from_email=self.from_email,
            email_template_name=self.email_template_name,
            subject_template_name=self.subject_template_name,
            request=self.request,
            html_email_template_name=self.html_email_template_name,
            extra_email_context=self.extra_email_context,
        )
        return HttpResponseRedirect(self.get_success_url())


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
    path("accounts/password_reset/", SiteURLPasswordResetView.as_view(), name="password_reset"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("crux_app.views.urls")),
    *_app_urls(),
]
