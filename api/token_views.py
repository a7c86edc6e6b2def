"""The account page where a researcher or reviewer makes and revokes personal API tokens.

Post/redirect/get: a new token is kept in the session only until the page after the redirect
shows it (popped there), so reloading that page neither makes a second token nor shows it again.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, UserPassesTestMixin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.decorators import method_decorator
from django.views import View

from api.models import ApiToken
from api.tokens import MAX_EXPIRY_DAYS, issue_token, revoke_token
from crux_app.response_compression import never_compress
from crux_app.roles import API_TOKEN_HOLDERS, may_hold_api_token

NEW_TOKEN_KEY = "api_tokens.new"


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="what the token is for, e.g. a notebook")
    expires_in_days = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_EXPIRY_DAYS,
        label="Expires after (days)",
        help_text=f"1 to {MAX_EXPIRY_DAYS}; empty: until revoked",
    )


class RevokeForm(forms.Form):
    token = forms.IntegerField(min_value=1, max_value=2**63 - 1)


@method_decorator(never_compress, name="dispatch")  # shows a secret once: BREACH
class ApiTokensView(LoginRequiredMixin, UserPassesTestMixin, View):
    """GET: the account's tokens (and a new one, once); POST: make one or revoke one, then
    redirect. Researchers and reviewers only (403 for other accounts)."""

    template_name = "api/tokens.html"
    permission_denied_message = f"API tokens are for {API_TOKEN_HOLDERS} only."

    def test_func(self) -> bool:
        return may_hold_api_token(self.request.user)

    def get(self, request: HttpRequest) -> HttpResponse:
        new = request.session.pop(NEW_TOKEN_KEY, None)
        extra = {}
        if new is not None:
            row = ApiToken.objects.filter(pk=new.get("id"), user=request.user).first()
            if row is not None:
                extra = {"new_token": new.get("token"), "new_row": row}
        return self._render(request, TokenForm(), **extra)

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
        data = form.cleaned_data
        row, token = issue_token(request.user, data["name"], data["expires_in_days"])
        # Kept server-side (the session's row) until the next GET shows it once.
        request.session[NEW_TOKEN_KEY] = {"id": row.pk, "token": token}
        return redirect("api-tokens")

    def _render(self, request: HttpRequest, form: TokenForm, status: int = 200, **extra):
        tokens = ApiToken.objects.filter(user=request.user)
        context = {"form": form, "tokens": tokens, **extra}
        response = render(request, self.template_name, context, status=status)
        response["Cache-Control"] = "no-store"  # a new token is on the page
        return response
