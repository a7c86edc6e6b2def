"""Every URL of the site, with valid and garbage path parameters and garbage in the query
parameters and form fields, as anonymous, annotator, researcher and a researcher of another
workspace: no response is a 5xx, none takes longer than ``SLOW_S``, and none to the other
workspace's researcher names a collection or campaign of the seeded workspace.

The URL patterns are read from the resolver (tests/security/url_patterns.py), so a new page is
fuzzed without changing this file. A first request with valid ids records which parameters
the view reads (``get``/``getlist``/``[]``/``in`` on the request's QueryDicts, which is also how
forms read them); each of those then gets every ``HOT`` value alone, and the other known names
get garbage a few at a time (tests/security/url_fuzzing.py). The rest is sampled with a fixed
seed (``URL_FUZZ_SEED`` changes it); every failure of one run is reported together.
"""

from __future__ import annotations

import os
import random

import pytest
from django.test import Client

from annotation.models import Campaign, ReviewCampaign
from crux_app.models import Collection
from crux_app.roles import RESEARCHER, add_role
from tests.security.url_fuzzing import QUERY_NAMES, VALID_LIKE, Fuzz, form_field_names, walk
from tests.security.url_patterns import Route, routes, seed

pytestmark = pytest.mark.django_db

SEED = int(os.environ.get("URL_FUZZ_SEED", "1505"))
PARTS = 4  # the routes in four tests of every fourth route each
MARKER = "zqx"  # starts every seeded collection's and campaign's name


@pytest.mark.parametrize("part", range(PARTS))
def test_no_url_answers_a_5xx_or_slowly(annotator, researcher, django_user_model, part):
    seeded = seed(annotator, researcher, marker=MARKER)
    # A researcher of another workspace: every seeded collection is in ``default``.
    outsider = django_user_model.objects.create_user("otto", password="outside-pass-1")
    add_role(outsider, RESEARCHER, workspace="elsewhere")
    secrets = (
        *Collection.objects.values_list("name", flat=True),
        *Campaign.objects.values_list("name", flat=True),
        *ReviewCampaign.objects.values_list("name", flat=True),
    )
    all_routes = routes()
    assert len(all_routes) > 40, "the resolver walk found too few URL patterns"
    part_routes = all_routes[part::PARTS]  # parts run side by side under pytest-xdist
    names = sorted(set(QUERY_NAMES) | set(form_field_names()))
    valid_like = seeded.ids + VALID_LIKE
    rng = random.Random(SEED * PARTS + part)
    failures, requests = [], 0
    annotate_routes = {
        r.route for r in part_routes if r.route.startswith(("annotate/", "api/v1/annotate/"))
    }
    # Deep where the account gets past the role check (Prolific arrivals are anonymous); the
    # other workspace's researcher is shallow everywhere, and sees none of the secrets.
    for user, deep_routes, hidden in (
        (None, {r.route for r in part_routes if r.route.startswith("annotate/prolific/")}, ()),
        (annotator, annotate_routes, ()),
        (researcher, {r.route for r in part_routes}, ()),
        (outsider, set(), secrets),
    ):
        client = Client()
        if user is not None:
            client.force_login(user)
        fuzz = Fuzz(rng, client, user.get_username() if user else "anonymous", hidden)
        shallow = [r for r in part_routes if r.route not in deep_routes]
        walk(fuzz, shallow, seeded.worlds, valid_like, names, deep=False)
        deep = [r for r in part_routes if r.route in deep_routes]
        walk(fuzz, deep, seeded.worlds, valid_like, names, deep=True)
        failures += fuzz.failures
        requests += fuzz.requests
    assert not failures, (
        f"{len(failures)} of {requests} requests failed (URL_FUZZ_SEED={SEED}):\n"
        + "\n".join(failures)
    )


def test_a_parameter_inside_a_segment_is_filled_like_a_whole_segment():
    route = Route("campaigns/<int:pk>/payment/<str:name>.csv", "payment-file", ("get",))
    assert route.params() == [("pk", "int", "campaign"), ("name", "str", "payment_file")]
    assert route.url({"pk": "7", "name": "bonuses"}) == "/campaigns/7/payment/bonuses.csv"


def test_a_parameter_after_an_unknown_segment_fails_the_walk():
    """A new kind of door is noticed: its parameter has no seeded object yet."""
    with pytest.raises(AssertionError, match="no seeded object for a parameter after 'gizmos/'"):
        Route("gizmos/<int:pk>/", "gizmo", ("get",)).params()
