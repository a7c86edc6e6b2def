"""A collection's audit trail page: who changed what, when and from where, a page at a time,
filtered by ``AuditFilter`` (kind, user, since, until) — researchers only."""

from django import forms
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.urls import path
from django.views import View

from crux_app.access import collection_or_404
from crux_app.audit.reading import AuditFilter
from crux_app.list_paging import ListPageForm, list_page, refused
from crux_app.parameters import ParameterError, declared_form
from crux_app.roles import ResearcherRequiredMixin

AuditFilterForm: type[forms.Form] = declared_form(AuditFilter, ListPageForm)


class CollectionAuditView(ResearcherRequiredMixin, View):
    """The collection's records, newest first."""

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        collection = collection_or_404(request, pk=pk)
        form = AuditFilterForm(request.GET)
        if bad := refused(form):
            return bad
        try:
            chosen = AuditFilter.from_params(AuditFilter.declared().form_values(form.cleaned_data))
        except ParameterError as error:
            return HttpResponseBadRequest(f"{error.name}: {error}", content_type="text/plain")
        listing = list_page(form, chosen.events(collection.pk))
        filters = [form[name] for name in AuditFilter.declared().parameters]
        context = {"collection": collection, "filters": filters, "listing": listing}
        return render(request, "crux_app/collection_audit.html", context)


urlpatterns = [
    path("collections/<int:pk>/audit/", CollectionAuditView.as_view(), name="collection-audit"),
]
