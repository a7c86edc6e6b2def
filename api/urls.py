"""``/api/v1/``: the API's own endpoints, the ones methods registered (``api.registry``), the
OpenAPI schema and its interactive docs; the account page for API tokens."""

from django.urls import URLPattern, include, path
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from api.registry import ENDPOINTS
from api.token_views import ApiTokensView
from api.views import (
    audit,
    collection_archive,
    collections,
    exports,
    imports,
    jobs,
    result_tables,
    results,
    workspaces,
)
from crux_app.url_tables import action_paths, view_paths


def _registered() -> list[URLPattern]:
    entries = sorted(ENDPOINTS.values(), key=lambda e: e.route)
    return view_paths(*((e.route, e.view, f"api-{e.name}") for e in entries))


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
    *view_paths(
        ("collections/", collections.CollectionListView, "api-collections"),
        ("collections/<str:name>/", collections.CollectionDetailView, "api-collection"),
        ("collections/<str:name>/imports/", imports.CollectionImportView, "api-collection-imports"),
        ("collections/<str:name>/audit/", audit.CollectionAuditView, "api-collection-audit"),
        (
            "collections/<str:name>/archive/",
            collection_archive.CollectionArchiveView,
            "api-collection-archive",
        ),
        ("collections/<str:name>/jobs/", jobs.CollectionJobStartView, "api-collection-jobs"),
        ("collections/<str:name>/judges/", results.JudgeListView, "api-judges"),
        ("collections/<str:name>/judgments/", results.JudgmentListView, "api-judgments"),
        ("collections/<str:name>/qrels/", results.QrelsListView, "api-qrels"),
        ("exports/", exports.ExportStartView, "api-exports"),
        ("exports/<int:pk>/download/", exports.ExportDownloadView, "api-export-download"),
        ("jobs/", jobs.JobListView, "api-jobs"),
        ("results/", result_tables.ResultTablesView, "api-result-tables"),
        ("jobs/<int:pk>/", jobs.JobDetailView, "api-job"),
        ("workspaces/", workspaces.WorkspaceListView, "api-workspaces"),
        (
            "workspaces/<str:name>/members/",
            workspaces.WorkspaceMembersView,
            "api-workspace-members",
        ),
        (
            "workspaces/<str:name>/members/<str:username>/",
            workspaces.WorkspaceMemberView,
            "api-workspace-member",
        ),
    ),
    *action_paths(
        "jobs/<int:pk>/", "api-job-", {"cancel": jobs.JobCancelView, "retry": jobs.JobRetryView}
    ),
    *_registered(),
]

urlpatterns = [
    path("api/v1/", include(v1)),
    path("account/api-tokens/", ApiTokensView.as_view(), name="api-tokens"),
    path(
        "collections/<int:pk>/archive/",
        collection_archive.CollectionArchivePageView.as_view(),
        name="collection-archive",
    ),
]
