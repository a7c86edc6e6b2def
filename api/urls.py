"""``/api/v1/``: the API's own endpoints, the ones methods registered (``api.registry``), the
OpenAPI schema and its interactive docs; the account page for API tokens."""

from django.urls import include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from api.registry import ENDPOINTS
from api.token_views import ApiTokensView
from api.views import collections, exports, imports, jobs, results


def _registered() -> list:
    return [
        path(e.route, e.view.as_view(), name=f"api-{e.name}")
        for e in sorted(ENDPOINTS.values(), key=lambda e: e.route)
    ]


v1 = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path(
        "redoc/",
        SpectacularRedocView.as_view(
            url_name="api-schema",
            template_name="api/redoc.html",  # no web fonts from a CDN
        ),
        name="api-redoc",
    ),
    path("collections/", collections.CollectionListView.as_view(), name="api-collections"),
    path(
        "collections/<str:name>/",
        collections.CollectionDetailView.as_view(),
        name="api-collection",
    ),
    path(
        "collections/<str:name>/imports/",
        imports.CollectionImportView.as_view(),
        name="api-collection-imports",
    ),
    path(
        "collections/<str:name>/jobs/",
        jobs.CollectionJobStartView.as_view(),
        name="api-collection-jobs",
    ),
    path("collections/<str:name>/judges/", results.JudgeListView.as_view(), name="api-judges"),
    path(
        "collections/<str:name>/judgments/",
        results.JudgmentListView.as_view(),
        name="api-judgments",
    ),
    path("collections/<str:name>/qrels/", results.QrelsListView.as_view(), name="api-qrels"),
    path("exports/", exports.ExportStartView.as_view(), name="api-exports"),
    path(
        "exports/<int:pk>/download/",
        exports.ExportDownloadView.as_view(),
        name="api-export-download",
    ),
    path("jobs/", jobs.JobListView.as_view(), name="api-jobs"),
    path("jobs/<int:pk>/", jobs.JobDetailView.as_view(), name="api-job"),
    path("jobs/<int:pk>/cancel/", jobs.JobCancelView.as_view(), name="api-job-cancel"),
    path("jobs/<int:pk>/retry/", jobs.JobRetryView.as_view(), name="api-job-retry"),
    *_registered(),
]

urlpatterns = [
    path("api/v1/", include(v1)),
    path("account/api-tokens/", ApiTokensView.as_view(), name="api-tokens"),
]
