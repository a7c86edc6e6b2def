"""LLM-retEval retriever evaluation pages, mounted at the site root by ``crux_app.urls``."""

urlpatterns: list = []
