"""The account page where a signed-in user makes and revokes personal API tokens."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views import View

from api.models import ApiToken
from api.tokens import issue_token, revoke_token


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="what the token is for, e.g. a notebook")


class RevokeForm(forms.Form):
    token = forms.IntegerField(min_value=1, max_value=2**63 - 1)


class ApiTokensView(LoginRequiredMixin, View):
    """GET: the account's tokens; POST: make one (shown once, on the answer) or revoke one."""

    template_name = "api/tokens.html"

    def get(self, request: HttpRequest) -> HttpResponse:
        return self._render(request, TokenForm())

    def post(self, request: HttpRequest) -> HttpResponse:
        if "revoke" in request.POST:
            revoke = RevokeForm(request.POST)
            if revoke.is_valid() and revoke_token(request.user, revoke.cleaned_data["token"]):
                messages.success(request, "Token revoked: requests with it now get 401.")
                return redirect("api-tokens")
            return self._render(request, TokenForm(), status=400, error="No such active token.")
        form = TokenForm(request.POST)
        if not form.is_valid():
            return self._render(request, form, status=400)
        row, token = issue_token(request.user, form.cleaned_data["name"])
        # Rendered, not redirected: the token must never pass through the session's messages.
        return self._render(request, TokenForm(), new_token=token, new_row=row)

    def _render(self, request: HttpRequest, form: TokenForm, status: int = 200, **extra):
        tokens = ApiToken.objects.filter(user=request.user)
        context = {"form": form, "tokens": tokens, **extra}
        return render(request, self.template_name, context, status=status)
