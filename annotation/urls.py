"""Annotation URLs, mounted at the site root by ``crux_app.urls``.

Annotators: ``/annotate/...`` (campaigns by slug, items by assignment id). Researchers:
``/campaigns/...`` (by primary key). Reviewers: ``/review/...`` (review campaigns by slug);
researchers make review campaigns at ``/campaigns/reviews/...``.
"""

from django.urls import path

from annotation.views import (
    annotator_quality,
    campaign_prolific,
    campaigns,
    prolific,
    review_campaigns,
    review_workspace,
    workspace,
)

urlpatterns = [
    path("annotate/", workspace.AnnotatorHomeView.as_view(), name="annotation-home"),
    path(
        "annotate/prolific/<slug:slug>/",
        prolific.ProlificArrivalView.as_view(),
        name="annotation-prolific",
    ),
    path("annotate/<slug:slug>/", workspace.WorkspaceView.as_view(), name="annotation-workspace"),
    path("annotate/<slug:slug>/next/", workspace.NextItemView.as_view(), name="annotation-next"),
    path(
        "annotate/<slug:slug>/prefetch/",
        workspace.PrefetchView.as_view(),
        name="annotation-prefetch",
    ),
    path(
        "annotate/<slug:slug>/items/<int:pk>/",
        workspace.ItemView.as_view(),
        name="annotation-item",
    ),
    path(
        "annotate/<slug:slug>/items/<int:pk>/submit/",
        workspace.SubmitView.as_view(),
        name="annotation-submit",
    ),
    path(
        "annotate/<slug:slug>/items/<int:pk>/skip/",
        workspace.SkipView.as_view(),
        name="annotation-skip",
    ),
    path(
        "annotate/<slug:slug>/items/<int:pk>/undo/",
        workspace.UndoView.as_view(),
        name="annotation-undo",
    ),
    path(
        "annotate/<slug:slug>/items/<int:pk>/draft/",
        workspace.DraftView.as_view(),
        name="annotation-draft",
    ),
    path("campaigns/", campaigns.CampaignListView.as_view(), name="campaign-list"),
    path("campaigns/new/", campaigns.CampaignCreateView.as_view(), name="campaign-create"),
    path("campaigns/preview/", campaigns.CampaignPreviewView.as_view(), name="campaign-preview"),
    path("campaigns/<int:pk>/", campaigns.CampaignDetailView.as_view(), name="campaign-detail"),
    path("campaigns/<int:pk>/state/", campaigns.CampaignStateView.as_view(), name="campaign-state"),
    path(
        "campaigns/<int:pk>/invite/",
        campaigns.CampaignInviteView.as_view(),
        name="campaign-invite",
    ),
    path(
        "campaigns/<int:pk>/prolific/",
        campaign_prolific.CampaignProlificView.as_view(),
        name="campaign-prolific",
    ),
    path("campaigns/<int:pk>/gold/", campaigns.CampaignGoldView.as_view(), name="campaign-gold"),
    path(
        "campaigns/<int:pk>/export/<str:fmt>/",
        campaigns.CampaignExportView.as_view(),
        name="campaign-export",
    ),
    path(
        "campaigns/<int:pk>/annotators/",
        annotator_quality.AnnotatorQualityView.as_view(),
        name="annotator-quality",
    ),
    path(
        "campaigns/<int:pk>/annotators/quality.csv",
        annotator_quality.AnnotatorQualityCsvView.as_view(),
        name="annotator-quality-csv",
    ),
    path("review/", review_workspace.ReviewHomeView.as_view(), name="review-home"),
    path(
        "review/<slug:slug>/",
        review_workspace.ReviewWorkspaceView.as_view(),
        name="review-workspace",
    ),
    path(
        "review/<slug:slug>/items/<int:pk>/decide/",
        review_workspace.ReviewDecideView.as_view(),
        name="review-decide",
    ),
    path(
        "campaigns/reviews/",
        review_campaigns.ReviewCampaignListView.as_view(),
        name="review-campaign-list",
    ),
    path(
        "campaigns/reviews/new/",
        review_campaigns.ReviewCampaignCreateView.as_view(),
        name="review-campaign-create",
    ),
    path(
        "campaigns/reviews/<int:pk>/",
        review_campaigns.ReviewCampaignDetailView.as_view(),
        name="review-campaign-detail",
    ),
]
