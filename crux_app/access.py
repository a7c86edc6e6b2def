"""Who may see and change a collection: its workspace's members by role, a token's narrowing,
and 404 for what a user may not know exists. Every door (page, API, export, job, webhook,
campaign, admin) goes through ``Collection.objects.visible_to`` or the lookups below."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest

from crux_app.access_scope import Access, AccessUser, as_access, workspaces_of
from crux_app.models import Collection, Job, Topic, Workspace, WorkspaceMember


def role_in(user: AccessUser, workspace: Workspace) -> str | None:
    """``user``'s role in ``workspace`` (a superuser manages every one), or None."""
    if not user.is_authenticated:
        return None
    if user.is_superuser:
        return WorkspaceMember.Role.MANAGER
    found = WorkspaceMember.objects.filter(workspace=workspace, user=user).first()
    return found.role if found else None


def collection_or_404(
    who: Access | AccessUser | HttpRequest,
    *,
    pk: int | None = None,
    name: str | None = None,
    write: bool = False,
) -> Collection:
    """The collection ``who`` may see (404 otherwise, as if it did not exist); with ``write``,
    403 when ``who`` sees it but may only read it (a viewer, or a read-only token)."""
    access = as_access(who)
    lookup = {"pk": pk} if pk is not None else {"name": (name or "").replace("\x00", "")}
    # With its workspace: pages name it, and a refused write says which it is.
    collection = (
        Collection.objects.visible_to(access).select_related("workspace").filter(**lookup).first()
    )
    if collection is None:
        raise Http404("No such collection.")
    if write and not may_write(access, collection):
        raise PermissionDenied(read_only_reason(access, collection))
    return collection


def may_write(who: Access | AccessUser | HttpRequest, collection: Collection) -> bool:
    return workspaces_of(who, write=True).filter(pk=collection.workspace_id).exists()


def read_only_reason(access: Access, collection: Collection) -> str:
    if access.read_only:
        return "This API token is read-only."
    return f"You may only read collections of workspace “{collection.workspace.name}”."


def require_write(who: Access | AccessUser | HttpRequest, collection: Collection | None) -> None:
    """403 unless ``who`` may change ``collection`` (None: a job of no collection, which only a
    read-only token may not change); call after the read lookup's 404."""
    access = as_access(who)
    if collection is None:
        if access.read_only:
            raise PermissionDenied("This API token is read-only.")
        return
    if not may_write(access, collection):
        raise PermissionDenied(read_only_reason(access, collection))


def topic_or_404(
    who: Access | AccessUser | HttpRequest, collection_pk: int, pk: int, *, write: bool = False
) -> Topic:
    """The topic ``pk`` of collection ``collection_pk`` with its collection, if ``who`` may see
    it (404 otherwise); with ``write``, 403 when ``who`` may only read it. One query."""
    access = as_access(who)
    topics = Topic.objects.visible_to(access).select_related("collection__workspace")
    topic = topics.filter(pk=pk, collection_id=collection_pk).first()
    if topic is None:
        raise Http404("No such topic in this collection.")
    if write:
        require_write(access, topic.collection)
    return topic


def job_or_404(
    who: Access | AccessUser | HttpRequest,
    pk: int,
    *,
    write: bool = False,
    jobs: QuerySet[Job] | None = None,
) -> Job:
    """The job ``pk`` of ``jobs`` (default: every job) if ``who`` may see it (404 otherwise);
    with ``write``, 403 when ``who`` may only read it."""
    access = as_access(who)
    job = (jobs if jobs is not None else Job.objects.all()).visible_to(access).filter(pk=pk).first()
    if job is None:
        raise Http404("No such job.")
    if write:
        require_write(access, job.collection)
    return job


def import_target(who: Access | AccessUser | HttpRequest, name: str) -> Collection | None:
    """The collection an import into ``name`` adds to, if ``who`` may change it (404 unseen,
    403 read only); None when no collection has the name yet (the import makes it)."""
    if Collection.objects.filter(name=(name or "").replace("\x00", "")).exists():
        return collection_or_404(who, name=name, write=True)
    require_write(who, None)  # a read-only token makes nothing
    return None
