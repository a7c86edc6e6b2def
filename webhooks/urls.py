from django.urls import path

from . import views

urlpatterns = [
    path("webhooks/", views.EndpointListView.as_view(), name="webhook-list"),
    path("webhooks/new/", views.EndpointCreateView.as_view(), name="webhook-create"),
    path("webhooks/<int:pk>/", views.EndpointDetailView.as_view(), name="webhook-detail"),
    path("webhooks/<int:pk>/test/", views.EndpointTestView.as_view(), name="webhook-test"),
    path("webhooks/<int:pk>/active/", views.EndpointActiveView.as_view(), name="webhook-active"),
    path("webhooks/<int:pk>/delete/", views.EndpointDeleteView.as_view(), name="webhook-delete"),
    path(
        "webhooks/deliveries/<int:pk>/",
        views.DeliveryDetailView.as_view(),
        name="webhook-delivery",
    ),
    path(
        "webhooks/deliveries/<int:pk>/redeliver/",
        views.DeliveryRedeliverView.as_view(),
        name="webhook-redeliver",
    ),
]
