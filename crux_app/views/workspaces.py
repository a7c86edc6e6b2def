"""Workspaces pages: ``/workspaces/`` (the account's workspaces, every one for a superuser, who
may create one there) and ``/workspaces/<id>/`` (its members and roles; its managers add members,
change roles and remove members). Post/redirect/get; a workspace the account is not in is 404."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import path
from django.views import View

from crux_app.access import role_in, workspaces_of
from crux_app.models import Workspace
from crux_app.roles import ResearcherRequiredMixin
from crux_app.workspaces import (
    USERNAME_CHARS,
    Role,
    WorkspaceRefused,
    account_named,
    create_workspace,
    listed_workspaces,
    may_create,
    may_manage,
    members_of,
    remove_member,
    set_role,
)


class CreateWorkspaceForm(forms.Form):
    name = forms.CharField(max_length=Workspace._meta.get_field("name").max_length)
    owner = forms.CharField(
        max_length=USERNAME_CHARS, required=False, help_text="its first manager; empty: you"
    )


class MemberForm(forms.Form):
    """Add a member or change a member's role (the same: a member's role is set)."""

    username = forms.CharField(max_length=USERNAME_CHARS)
    role = forms.ChoiceField(choices=Role.choices, initial=Role.RESEARCHER)


class RemoveForm(forms.Form):
    username = forms.CharField(max_length=USERNAME_CHARS)


class WorkspaceListView(ResearcherRequiredMixin, View):
    template_name = "crux_app/workspace_list.html"

    def get(self, request: HttpRequest) -> HttpResponse:
        return self._render(request, CreateWorkspaceForm())

    def post(self, request: HttpRequest) -> HttpResponse:
        if not may_create(request.user):
            raise PermissionDenied("Only superusers create workspaces.")
        form = CreateWorkspaceForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                owner = account_named(data["owner"], "owner") if data["owner"] else request.user
                workspace = create_workspace(data["name"], owner)
            except WorkspaceRefused as refusal:
                form.add_error(refusal.field or None, str(refusal))
            else:
                messages.success(request, f"Workspace “{workspace.name}” created.")
                return redirect("workspace-detail", pk=workspace.pk)
        return self._render(request, form, status=400)

    def _render(self, request: HttpRequest, form: CreateWorkspaceForm, status: int = 200):
        rows = list(listed_workspaces(request.user))
        for row in rows:
            row.your_role = role_in(request.user, row)
        context = {"workspaces": rows, "form": form, "may_create": may_create(request.user)}
        return render(request, self.template_name, context, status=status)


class WorkspaceDetailView(ResearcherRequiredMixin, View):
    template_name = "crux_app/workspace_detail.html"

    def get(self, request: HttpRequest, pk: int) -> HttpResponse:
        return self._render(request, _visible(request, pk), MemberForm())

    def post(self, request: HttpRequest, pk: int) -> HttpResponse:
        workspace = _visible(request, pk)
        if not may_manage(request.user, workspace):
            raise PermissionDenied("Only the workspace's managers change its members.")
        removing = "remove" in request.POST
        form = (RemoveForm if removing else MemberForm)(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                user = account_named(data["username"])
                if removing:
                    remove_member(workspace, user)
                    said = f"{user.get_username()} removed."
                else:
                    member, added = set_role(workspace, user, data["role"])
                    said = (
                        f"{user.get_username()} {'added as' if added else 'is now'} {member.role}."
                    )
            except WorkspaceRefused as refusal:
                form.add_error(None, str(refusal))
            else:
                messages.success(request, said)
                return redirect("workspace-detail", pk=workspace.pk)
        errors = [message for found in form.errors.values() for message in found]
        add_form = MemberForm() if removing else form
        return self._render(request, workspace, add_form, status=400, errors=errors)

    def _render(self, request, workspace: Workspace, form: MemberForm, status=200, errors=()):
        context = {
            "workspace": workspace,
            "members": members_of(workspace),
            "collections": workspace.collections.order_by("name")[:200],
            "your_role": role_in(request.user, workspace),
            "manages": may_manage(request.user, workspace),
            "form": form,
            "roles": Role.choices,
            "errors": errors,
        }
        return render(request, self.template_name, context, status=status)


def _visible(request: HttpRequest, pk: int) -> Workspace:
    found = workspaces_of(request.user).filter(pk=pk).first()
    if found is None:
        raise Http404("No such workspace.")
    return found


urlpatterns = [
    path("workspaces/", WorkspaceListView.as_view(), name="workspace-list"),
    path("workspaces/<int:pk>/", WorkspaceDetailView.as_view(), name="workspace-detail"),
]
