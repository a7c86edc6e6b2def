"""Who may arrive from a Prolific link: only the campaign's own study, and new participants only
within the campaign's places and the per-minute cap.

A campaign's study link is a slug anyone can guess, and Prolific's ids are not secret: without
these checks a stranger could mint annotator accounts at will.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from annotation.models import AnnotatorProfile, Campaign

PARTICIPANT_WINDOW = timedelta(minutes=1)


class ArrivalError(ValueError):
    """A Prolific link that cannot start a session; the message names the parameter and
    ``status`` is the HTTP status."""

    status = 400


class ArrivalRefused(ArrivalError):
    """A well-formed link that must not log in: another study, another session of the same
    study, or a campaign with no places left."""

    status = 403


class TooManyArrivals(ArrivalRefused):
    """More new participants in the last minute than PROLIFIC_NEW_PARTICIPANTS_PER_MINUTE."""

    status = 429


@dataclass(frozen=True)
class ProlificPlaces:
    """A campaign's Prolific places: how many it takes, how many are taken, and from where."""

    total: int
    taken: int
    explicit: bool  # the campaign's prolific_places field, else its items x overlap

    @property
    def left(self) -> int:
        return max(0, self.total - self.taken)


def check_study(campaign: Campaign, study_id: str) -> None:
    """ArrivalRefused unless ``study_id`` is the campaign's Prolific study."""
    if not campaign.prolific_study_id:
        raise ArrivalRefused(
            "this campaign is not bound to a Prolific study yet, so it takes no participants; "
            "the researcher must enter the study id on the campaign page"
        )
    if study_id != campaign.prolific_study_id:
        raise ArrivalRefused(
            "this link's STUDY_ID is not the study this campaign runs; open the study from "
            "Prolific again"
        )


def participants(campaign: Campaign):
    """The campaign's Prolific participants (they are invited on arrival)."""
    return campaign.invited.filter(annotator_profile__source=AnnotatorProfile.Source.PROLIFIC)


def places(campaign: Campaign) -> ProlificPlaces:
    """The campaign's places: its ``prolific_places``, else regular items x overlap."""
    explicit = campaign.prolific_places is not None
    if explicit:
        total = campaign.prolific_places
    else:
        total = campaign.items.regular().count() * campaign.overlap
    return ProlificPlaces(total=total, taken=participants(campaign).count(), explicit=explicit)


def admit_new_participant(campaign: Campaign) -> None:
    """ArrivalRefused when the campaign must not take one more participant now.

    Call it inside the transaction that creates the participant, with the campaign's row
    locked (``select_for_update``), so concurrent arrivals are counted one after another.
    """
    if places(campaign).left <= 0:
        raise ArrivalRefused(
            "all places of this study are taken; please return the study on Prolific"
        )
    limit = settings.PROLIFIC_NEW_PARTICIPANTS_PER_MINUTE
    since = timezone.now() - PARTICIPANT_WINDOW
    recent = participants(campaign).filter(annotator_profile__created_at__gte=since).count()
    if recent >= limit:
        raise TooManyArrivals(
            "too many participants are starting this study at once; wait a minute and "
            "reload this page"
        )
