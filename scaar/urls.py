"""SCAAR word contributions pages, mounted at the site root by ``crux_app.urls``."""

urlpatterns: list = []
