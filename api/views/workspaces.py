"""Workspaces: list yours, create one (superusers), list a workspace's members, set a member's
role and remove a member (its managers). A workspace the caller is not in is 404."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import field_error
from api.paging import ApiPagination
from api.serializers import ErrorSerializer
from crux_app.access import Access, role_in, workspaces_of
from crux_app.models import Workspace, WorkspaceMember
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
    name_problem,
    remove_member,
    set_role,
)


class WorkspaceSerializer(serializers.ModelSerializer):
    role = serializers.SerializerMethodField(help_text="your role in it")
    members = serializers.IntegerField(source="n_members", read_only=True)
    collections = serializers.IntegerField(source="n_collections", read_only=True)

    class Meta:
        model = Workspace
        fields = ["id", "name", "created_at", "role", "members", "collections"]

    def get_role(self, workspace: Workspace) -> str | None:
        return role_in(self.context["request"].user, workspace)


class WorkspaceCreateSerializer(serializers.Serializer):
    name = serializers.CharField(
        max_length=Workspace._meta.get_field("name").max_length, trim_whitespace=False
    )
    owner = serializers.CharField(
        max_length=USERNAME_CHARS, required=False, help_text="its first manager; default: you"
    )

    def validate_name(self, name: str) -> str:
        problem = name_problem(name)
        if problem:
            raise serializers.ValidationError(problem)
        return name


class MemberSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = WorkspaceMember
        fields = ["username", "role", "created_at"]
        read_only_fields = fields


class MemberRoleSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Role.choices)


def _refused(refusal: WorkspaceRefused) -> Exception:
    return field_error(refusal.field or "__all__", str(refusal))


def visible_workspace(request: Request, name: str) -> Workspace:
    """The workspace of a URL's ``<name>`` the caller is in (404 otherwise)."""
    found = workspaces_of(Access.of(request)).filter(name=name.replace("\x00", "")).first()
    if found is None:
        raise Http404("No such workspace.")
    return found


def managed_workspace(request: Request, name: str) -> Workspace:
    """As ``visible_workspace``, and 403 unless the caller manages it."""
    workspace = visible_workspace(request, name)
    if not may_manage(Access.of(request), workspace):
        raise PermissionDenied("Only the workspace's managers change its members.")
    return workspace


class WorkspaceListView(APIView):
    @extend_schema(responses=WorkspaceSerializer(many=True))
    def get(self, request: Request) -> Response:
        """Your workspaces (a superuser: every one) with your role in each."""
        rows = listed_workspaces(Access.of(request)).order_by("name")
        paging = ApiPagination()
        page = paging.paginate_queryset(rows, request, self)
        data = WorkspaceSerializer(page, many=True, context={"request": request}).data
        return paging.get_paginated_response(data)

    @extend_schema(
        request=WorkspaceCreateSerializer,
        responses={201: WorkspaceSerializer, 400: ErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        """Create a workspace with its first manager (superusers only)."""
        if not may_create(Access.of(request)):
            raise PermissionDenied("Only superusers create workspaces.")
        body = WorkspaceCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            owner = account_named(data["owner"], "owner") if "owner" in data else request.user
            workspace = create_workspace(data["name"], owner)
        except WorkspaceRefused as refusal:
            raise _refused(refusal) from None
        row = listed_workspaces(Access.of(request)).get(pk=workspace.pk)
        shown = WorkspaceSerializer(row, context={"request": request}).data
        return Response(shown, status=status.HTTP_201_CREATED)


class WorkspaceMembersView(APIView):
    @extend_schema(responses=MemberSerializer(many=True))
    def get(self, request: Request, name: str) -> Response:
        """The workspace's members and their roles (any member may read them)."""
        workspace = visible_workspace(request, name)
        paging = ApiPagination()
        page = paging.paginate_queryset(members_of(workspace), request, self)
        return paging.get_paginated_response(MemberSerializer(page, many=True).data)


class WorkspaceMemberView(APIView):
    @extend_schema(
        request=MemberRoleSerializer,
        responses={200: MemberSerializer, 201: MemberSerializer, 400: ErrorSerializer},
    )
    def put(self, request: Request, name: str, username: str) -> Response:
        """Add the account as a member with ``role``, or change its role (managers; 201 when
        added). The last manager cannot stop being one."""
        workspace = managed_workspace(request, name)
        body = MemberRoleSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            user = account_named(username)
            member, added = set_role(workspace, user, body.validated_data["role"])
        except WorkspaceRefused as refusal:
            raise _refused(refusal) from None
        code = status.HTTP_201_CREATED if added else status.HTTP_200_OK
        return Response(MemberSerializer(member).data, status=code)

    @extend_schema(responses={204: None, 400: ErrorSerializer})
    def delete(self, request: Request, name: str, username: str) -> Response:
        """Take the account out of the workspace (managers; never its last manager)."""
        workspace = managed_workspace(request, name)
        member = members_of(workspace).filter(user__username=username).first()
        if member is None:
            raise Http404("No such member.")
        try:
            remove_member(workspace, member.user)
        except WorkspaceRefused as refusal:
            raise _refused(refusal) from None
        return Response(status=status.HTTP_204_NO_CONTENT)
