"""The site root: researchers go to their collections, annotators to their campaigns, and an
anonymous visitor to the login page, which brings them back here (so to their role's home)."""

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views import View

from crux_app.roles import is_researcher


class HomeView(View):
    def get(self, request: HttpRequest) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_researcher(request.user):
            return redirect("annotation-home")
        return redirect("collection-list")
