"""The agreement page and the review campaigns' "who was right" page, mounted at the site root
by ``crux_app.urls``."""

from django.urls import path

from evaluation.agreement.plot_views import AgreementPlotView
from evaluation.agreement.verdict_views import ReviewVerdictView
from evaluation.agreement.views import AgreementView

urlpatterns = [
    path("collections/<int:pk>/agreement/", AgreementView.as_view(), name="agreement"),
    path(
        "collections/<int:pk>/agreement/plots/<slug:plot>/",
        AgreementPlotView.as_view(),
        name="agreement-plot",
    ),
    path(
        "campaigns/reviews/<int:pk>/verdict/",
        ReviewVerdictView.as_view(),
        name="review-verdict",
    ),
]
