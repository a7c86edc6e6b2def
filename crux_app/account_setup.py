"""Idempotent creation of role accounts for the demo and for first-time setup."""

from dataclasses import dataclass
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, Permission

from .roles import add_role


def project_app_labels() -> tuple[str, ...]:
    """The project's own apps (packages at the top of BASE_DIR, not installed libraries): a
    staff researcher may browse and edit their models in /admin/."""
    base = Path(settings.BASE_DIR).resolve()
    return tuple(
        config.label
        for config in apps.get_app_configs()
        if Path(config.path).resolve().is_relative_to(base / config.name.split(".")[0])
    )


@dataclass(frozen=True)
class AccountResult:
    username: str
    created: bool
    changed: bool


def ensure_account(
    username: str, password: str | None, role: str, staff: bool = False
) -> AccountResult:
    """Create or update `username` so it has `password`, `role` and staff status; no-op if set.

    ``password=None`` leaves an existing account's password as it is (a new one gets none
    usable)."""
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(username=username)
    changed = created
    if password is None:
        if created:
            user.set_unusable_password()
    elif not user.check_password(password):
        user.set_password(password)
        changed = True
    if staff and not user.is_staff:
        user.is_staff = True
        changed = True
    if changed:
        user.save()
    # Check the group itself: has_role() is also true for a superuser outside the group.
    if not user.groups.filter(name=role).exists():
        add_role(user, role)
        changed = True
    if staff and _grant_admin_permissions(user):
        changed = True
    return AccountResult(username=username, created=created, changed=changed)


def _grant_admin_permissions(user: AbstractBaseUser) -> bool:
    """Give a staff account every model permission of the project's apps; True if any was new."""
    wanted = set(
        Permission.objects.filter(content_type__app_label__in=project_app_labels()).values_list(
            "pk", flat=True
        )
    )
    missing = wanted - set(user.user_permissions.values_list("pk", flat=True))
    if missing:
        user.user_permissions.add(*missing)
    return bool(missing)
