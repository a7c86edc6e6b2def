from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("crux_app.views.urls")),
    path("", include("evaluation.urls")),
    path("", include("annotation.urls")),
    path("", include("dense.urls")),
    path("", include("scaar.urls")),
    path("", include("reteval.urls")),
]
