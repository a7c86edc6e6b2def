"""Annotation URLs, mounted at the site root by ``crux_app.urls``.

Annotators: ``/annotate/...`` (campaigns by slug, items by assignment id). Researchers:
``/campaigns/...`` (by primary key). Reviewers: ``/review/...`` (review campaigns by slug);
researchers make review campaigns at ``/campaigns/reviews/...``.
"""

from annotation.views import (
    aggregation,
    annotator_quality,
    campaign_payment,
    campaign_prolific,
    campaigns,
    prolific,
    review_campaigns,
    review_workspace,
    workspace,
)
from crux_app.url_tables import action_paths, view_paths

ITEM = "annotate/<slug:slug>/items/<int:pk>/"

urlpatterns = [
    *view_paths(
        ("annotate/", workspace.AnnotatorHomeView, "annotation-home"),
        ("annotate/prolific/<slug:slug>/", prolific.ProlificArrivalView, "annotation-prolific"),
        ("annotate/<slug:slug>/", workspace.WorkspaceView, "annotation-workspace"),
        ("annotate/<slug:slug>/next/", workspace.NextItemView, "annotation-next"),
        ("annotate/<slug:slug>/prefetch/", workspace.PrefetchView, "annotation-prefetch"),
        (ITEM, workspace.ItemView, "annotation-item"),
    ),
    *action_paths(
        ITEM,
        "annotation-",
        {
            "submit": workspace.SubmitView,
            "skip": workspace.SkipView,
            "undo": workspace.UndoView,
            "draft": workspace.DraftView,
        },
    ),
    *view_paths(
        ("campaigns/", campaigns.CampaignListView, "campaign-list"),
        ("campaigns/new/", campaigns.CampaignCreateView, "campaign-create"),
        ("campaigns/preview/", campaigns.CampaignPreviewView, "campaign-preview"),
        ("campaigns/<int:pk>/", campaigns.CampaignDetailView, "campaign-detail"),
    ),
    *action_paths(
        "campaigns/<int:pk>/",
        "campaign-",
        {
            "state": campaigns.CampaignStateView,
            "invite": campaigns.CampaignInviteView,
            "prolific": campaign_prolific.CampaignProlificView,
            "gold": campaigns.CampaignGoldView,
        },
    ),
    *view_paths(
        ("campaigns/<int:pk>/export/<str:fmt>/", campaigns.CampaignExportView, "campaign-export"),
        (
            "campaigns/<int:pk>/annotators/",
            annotator_quality.AnnotatorQualityView,
            "annotator-quality",
        ),
        (
            "campaigns/<int:pk>/annotators/quality.csv",
            annotator_quality.AnnotatorQualityCsvView,
            "annotator-quality-csv",
        ),
        ("campaigns/<int:pk>/payment/", campaign_payment.CampaignPaymentView, "campaign-payment"),
        (
            "campaigns/<int:pk>/payment/<str:name>.csv",
            campaign_payment.CampaignPaymentFileView,
            "campaign-payment-file",
        ),
        (
            "collections/<int:pk>/aggregate/",
            aggregation.LabelAggregationView,
            "label-aggregation",
        ),
        ("review/", review_workspace.ReviewHomeView, "review-home"),
        ("review/<slug:slug>/", review_workspace.ReviewWorkspaceView, "review-workspace"),
        (
            "review/<slug:slug>/items/<int:pk>/decide/",
            review_workspace.ReviewDecideView,
            "review-decide",
        ),
        ("campaigns/reviews/", review_campaigns.ReviewCampaignListView, "review-campaign-list"),
        (
            "campaigns/reviews/new/",
            review_campaigns.ReviewCampaignCreateView,
            "review-campaign-create",
        ),
        (
            "campaigns/reviews/new/count/",
            review_campaigns.ReviewQueueCountView,
            "review-campaign-count",
        ),
        (
            "campaigns/reviews/<int:pk>/",
            review_campaigns.ReviewCampaignDetailView,
            "review-campaign-detail",
        ),
    ),
]
