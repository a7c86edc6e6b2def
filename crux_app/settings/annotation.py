"""Human annotation: Prolific arrivals and the speeding floors of quality control."""

import os

from django.core.exceptions import ImproperlyConfigured

from .environment import env_seconds

# Prolific arrivals: at most this many new participants per campaign and minute (a study
# link is guessable; the campaign's places cap the total).
PROLIFIC_NEW_PARTICIPANTS_PER_MINUTE = int(
    os.environ.get("PROLIFIC_NEW_PARTICIPANTS_PER_MINUTE", "60")
)
if PROLIFIC_NEW_PARTICIPANTS_PER_MINUTE < 1:
    raise ImproperlyConfigured("PROLIFIC_NEW_PARTICIPANTS_PER_MINUTE must be at least 1")

# Annotation quality control: an annotator whose median time per item is under the floor of
# the campaign's task type is flagged as speeding (campaign page, annotators export).
# ANNOTATION_SPEEDING_FLOOR_SECONDS="passage_rating=4,report_coverage=15" overrides floors.
ANNOTATION_SPEEDING_FLOOR_SECONDS = {
    "passage_rating": 3.0,
    "report_coverage": 10.0,
    "answer_equivalence": 2.0,
    "failure_category": 5.0,
    **env_seconds("ANNOTATION_SPEEDING_FLOOR_SECONDS"),
}
