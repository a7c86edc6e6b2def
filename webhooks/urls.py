from crux_app.url_tables import action_paths, view_paths

from . import views

urlpatterns = [
    *view_paths(
        ("webhooks/", views.EndpointListView, "webhook-list"),
        ("webhooks/new/", views.EndpointCreateView, "webhook-create"),
        ("webhooks/<int:pk>/", views.EndpointDetailView, "webhook-detail"),
        ("webhooks/<int:pk>/created/", views.EndpointCreatedView, "webhook-created"),
    ),
    *action_paths(
        "webhooks/<int:pk>/",
        "webhook-",
        {
            "test": views.EndpointTestView,
            "active": views.EndpointActiveView,
            "delete": views.EndpointDeleteView,
        },
    ),
    *view_paths(
        ("webhooks/deliveries/<int:pk>/", views.DeliveryDetailView, "webhook-delivery"),
        (
            "webhooks/deliveries/<int:pk>/redeliver/",
            views.DeliveryRedeliverView,
            "webhook-redeliver",
        ),
    ),
]
