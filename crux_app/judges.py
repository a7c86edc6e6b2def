"""The human judge that stands for a researcher's account when they label in a method's page."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from crux_app.models import Judge


def researcher_judge(user: AbstractBaseUser) -> Judge:
    """The human judge standing for this account, created on first use.

    It is named after the username; when an imported judge (no account) already holds that
    name, the account's judge gets a distinct one rather than taking over imported labels.
    """
    judge = Judge.objects.filter(user=user).first()
    if judge is not None:
        return judge
    name = user.get_username()
    if Judge.objects.filter(name=name).exists():
        name = f"{name} (account {user.pk})"
    return Judge.objects.create(name=name, kind=Judge.Kind.HUMAN, user=user)
