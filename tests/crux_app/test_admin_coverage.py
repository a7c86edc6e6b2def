"""Every model of the project's apps can be browsed in the Django admin."""

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

from crux_app.account_setup import project_app_labels

PROJECT_APPS = project_app_labels()


def inline_models() -> set[type]:
    return {
        inline.model
        for model_admin in admin.site._registry.values()
        for inline in model_admin.inlines
    }


def test_every_model_has_an_admin_page_or_an_inline():
    inlines = inline_models()
    missing = [
        model._meta.label
        for app in PROJECT_APPS
        for model in apps.get_app_config(app).get_models()
        if model not in admin.site._registry and model not in inlines
    ]
    assert missing == []


@pytest.mark.django_db
def test_the_method_apps_admin_lists_open(admin_client):
    assert {"crux_app", "annotation", "seper", "dense", "scaar", "reteval"} <= set(PROJECT_APPS)
    for app in PROJECT_APPS:
        for model in apps.get_app_config(app).get_models():
            if model not in admin.site._registry:
                continue  # an inline of another model's page
            meta = model._meta
            url = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
            assert admin_client.get(url).status_code == 200, url
