"""The account page where a researcher or reviewer makes and revokes personal API tokens.

Post/redirect/get: a new token is kept in the session only until the page after the redirect
shows it (popped there), so reloading that page neither makes a second token nor shows it again.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin, UserPassesTestMixin
from django.contrib.auth.models import AbstractBaseUser
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.decorators import method_decorator
from django.views import View

from api.models import ApiToken
from api.tokens import MAX_EXPIRY_DAYS, issue_token, revoke_token
from crux_app.access import workspaces_of
from crux_app.models import Workspace
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
    workspace = forms.ModelChoiceField(
        queryset=Workspace.objects.none(),
        required=False,
        empty_label="every workspace of yours",
        label="Only workspace",
        help_text="the token sees this workspace's collections only",
    )
    read_only = forms.BooleanField(
        required=False, label="Read only", help_text="the token may read, never change"
    )

    def __init__(self, *args, user: AbstractBaseUser, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["workspace"].queryset = workspaces_of(user).order_by("name")


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
        return self._render(request, TokenForm(user=request.user), **extra)

    def post(self, request: HttpRequest) -> HttpResponse:
        if "revoke" in request.POST:
            revoke = RevokeForm(request.POST)
            if revoke.is_valid() and revoke_token(request.user, revoke.cleaned_data["token"]):
                messages.success(request, "Token revoked: requests with it now get 401.")
                return redirect("api-tokens")
            form = TokenForm(user=request.user)
            return self._render(request, form, status=400, error="No such active token.")
        form = TokenForm(request.POST, user=request.user)
        if not form.is_valid():
            return self._render(request, form, status=400)
        data = form.cleaned_data
        row, token = issue_token(
            request.user,
            data["name"],
            data["expires_in_days"],
            workspace=data["workspace"],
            read_only=data["read_only"],
        )
        # Kept server-side (the session's row) until the next GET shows it once.
        request.session[NEW_TOKEN_KEY] = {"id": row.pk, "token": token}
        return redirect("api-tokens")

    def _render(self, request: HttpRequest, form: TokenForm, status: int = 200, **extra):
        tokens = ApiToken.objects.filter(user=request.user).select_related("workspace")
        context = {"form": form, "tokens": tokens, **extra}
        response = render(request, self.template_name, context, status=status)
        response["Cache-Control"] = "no-store"  # a new token is on the page
        return response
