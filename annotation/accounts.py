"""Annotator accounts: invited by a researcher, or created on arrival from a Prolific link."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.validators import MaxLengthValidator
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from annotation.models import AnnotatorProfile, Campaign
from annotation.prolific.admission import ArrivalError, ArrivalRefused, admit_new_participant
from crux_app.roles import ANNOTATOR, RESEARCHER, add_role, has_role

# Prolific's participant, study and session ids are 24 hexadecimal characters.
PROLIFIC_ID = re.compile(r"[0-9a-f]{24}")
PROLIFIC_PARAMS = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
PROLIFIC_USERNAME_PREFIX = "prolific-"


@dataclass(frozen=True)
class ProlificParams:
    pid: str
    study_id: str
    session_id: str

    def values(self) -> tuple[str, str, str]:
        """The ids in the order of PROLIFIC_PARAMS."""
        return (self.pid, self.study_id, self.session_id)

    @property
    def key(self) -> str:
        """What the participant's account is bound to: one account per participant and
        study (``AnnotatorProfile.prolific_pid`` holds ``<pid>:<study>``, 49 characters)."""
        return f"{self.pid}:{self.study_id}"


def parse_prolific_params(query: Mapping[str, str]) -> ProlificParams:
    """The three ids Prolific appends to a study link, checked (24 hexadecimal characters)."""
    values = []
    for name in PROLIFIC_PARAMS:
        raw = query.get(name) or ""
        value = raw.strip().lower()
        if not value:
            raise ArrivalError(f"the link lacks {name}; open the study from Prolific again")
        if not PROLIFIC_ID.fullmatch(value):
            raise ArrivalError(
                f"{name} '{raw[:80]}' is not a Prolific id (24 hexadecimal characters)"
            )
        values.append(value)
    return ProlificParams(*values)


def username_field_max_length() -> int:
    return get_user_model()._meta.get_field("username").max_length


def username_validators() -> list:
    """Django's username rules: letters, digits and @ . + - _ only, within the field's length."""
    return [UnicodeUsernameValidator(), MaxLengthValidator(username_field_max_length())]


def check_username(username: str) -> None:
    """ValidationError if ``username`` is not a valid account name."""
    for validator in username_validators():
        validator(username)


def ensure_profile(user: AbstractBaseUser) -> AnnotatorProfile:
    profile, _ = AnnotatorProfile.objects.get_or_create(user=user)
    return profile


def invite_annotator(
    campaign: Campaign, username: str, password: str | None = None
) -> tuple[AbstractBaseUser, bool]:
    """Invite an account to the campaign, creating it (with ``password``) if it is new.

    Returns (user, created). An existing account keeps its password; it gains the annotator
    role only if it has no researcher role (researchers may annotate too, and a researcher
    made an annotator would land on the annotator pages). A new account's name must pass
    Django's username rules (ValidationError otherwise).
    """
    user_model = get_user_model()
    with transaction.atomic():
        user = user_model.objects.filter(username=username).first()
        created = user is None
        if created:
            if not password:
                raise ValueError("a new account needs a password")
            check_username(username)
            user = user_model.objects.create_user(username=username, password=password)
            add_role(user, ANNOTATOR)
        elif not has_role(user, ANNOTATOR) and not _is_researcher_account(user):
            add_role(user, ANNOTATOR)
        ensure_profile(user)
        campaign.invited.add(user)
    return user, created


def prolific_arrival(
    campaign: Campaign, params: ProlificParams, current: AbstractBaseUser | AnonymousUser
) -> AbstractBaseUser:
    """The annotator of a Prolific participant in one study: created on first arrival,
    resumed after in the same browser session.

    The account is bound to the participant, study and session ids of its first arrival; the
    same participant and study with another session is refused (ArrivalRefused). The link is
    a one-time entry: once it has logged in, it resumes the account only in the browser
    session already logged in as it (``current``); from any other browser it is refused, so a
    copied link cannot take the participant's place. A new participant is taken only within
    the campaign's places and the per-minute cap (``prolific_admission``; ArrivalRefused). The
    account has no usable password, is in the annotator group, and is invited to the campaign
    it arrived at. Its name is ``prolific-<pid>``, or ``prolific-<pid>-<n>`` when that name is
    taken (by another study's account of the participant, or by any other account: that one
    is never logged in).
    """
    try:
        return _arrive(campaign, params, current)
    except IntegrityError:
        # Two requests of the same link at once: the other one created the account and logged
        # in; this one is a second entry, refused (a reload in the first browser continues).
        return _arrive(campaign, params, current)


def find_participant(
    params: ProlificParams, current: AbstractBaseUser | AnonymousUser
) -> AbstractBaseUser | None:
    """The account a link would log in as, None if the link would create one; ArrivalRefused
    if the link must not log in (from the browser session of ``current``)."""
    profile = _participant_profile(params)
    if profile is None:
        return None
    _check_binding(profile, params, current)
    return profile.user


def _participant_profile(params: ProlificParams, lock: bool = False) -> AnnotatorProfile | None:
    # Accounts made before the study binding hold the bare participant id, with their study.
    profiles = AnnotatorProfile.objects.select_for_update() if lock else AnnotatorProfile.objects
    return (
        profiles.select_related("user")
        .filter(source=AnnotatorProfile.Source.PROLIFIC)
        .filter(
            Q(prolific_pid=params.key)
            | Q(prolific_pid=params.pid, prolific_study_id=params.study_id)
        )
        .first()
    )


def _is_researcher_account(user: AbstractBaseUser) -> bool:
    return user.is_staff or user.is_superuser or has_role(user, RESEARCHER)


def _check_binding(
    profile: AnnotatorProfile, params: ProlificParams, current: AbstractBaseUser | AnonymousUser
) -> None:
    user = profile.user
    if _is_researcher_account(user):
        raise ArrivalRefused("this Prolific link belongs to a staff account; it cannot log in")
    if profile.prolific_session_id != params.session_id:
        raise ArrivalRefused(
            "this Prolific participant already took part in this study in another session; "
            "open the study from Prolific again, or contact the researcher"
        )
    # A participant has no password: the browser session the link first logged in is the only
    # place the account stays open (a second browser, or a logged-out one, is refused).
    if profile.prolific_entered_at is not None and current.pk != user.pk:
        raise ArrivalRefused(
            "this Prolific link was already used to start the study in another browser (or "
            "that browser logged out); continue in the browser where you started, or contact "
            "the researcher through Prolific"
        )


def _free_username(pid: str) -> str:
    user_model = get_user_model()
    base = f"{PROLIFIC_USERNAME_PREFIX}{pid}"
    taken = set(
        user_model.objects.filter(username__startswith=base).values_list("username", flat=True)
    )
    username, n = base, 2
    while username in taken:
        username, n = f"{base}-{n}", n + 1
    check_username(username)
    return username


def _arrive(
    campaign: Campaign, params: ProlificParams, current: AbstractBaseUser | AnonymousUser
) -> AbstractBaseUser:
    user_model = get_user_model()
    with transaction.atomic():
        profile = _participant_profile(params, lock=True)
        if profile is None:
            # Locked, so concurrent arrivals are counted against the caps one at a time.
            admit_new_participant(Campaign.objects.select_for_update().get(pk=campaign.pk))
            user = user_model(username=_free_username(params.pid))
            user.set_unusable_password()
            user.save()
            add_role(user, ANNOTATOR)
            profile = AnnotatorProfile.objects.create(
                user=user,
                source=AnnotatorProfile.Source.PROLIFIC,
                prolific_pid=params.key,
                prolific_study_id=params.study_id,
                prolific_session_id=params.session_id,
                prolific_entered_at=timezone.now(),
            )
        else:
            _check_binding(profile, params, current)
            if profile.prolific_entered_at is None:  # an account from before one-time entry
                profile.prolific_entered_at = timezone.now()
                profile.save(update_fields=["prolific_entered_at"])
        campaign.invited.add(profile.user)
        return profile.user
