"""The judge report page, mounted at the site root by ``crux_app.urls``."""

from django.urls import path

from evaluation.judge_report.views import JudgeReportView, LabelCampaignView

urlpatterns = [
    path("collections/<int:pk>/judge-report/", JudgeReportView.as_view(), name="judge-report"),
    path(
        "collections/<int:pk>/judge-report/campaign/",
        LabelCampaignView.as_view(),
        name="judge-report-campaign",
    ),
]
