"""The bench's scratch campaign and its logged-in annotators (``bench/annotate.py``)."""

import json

COLLECTION = "bench-annotate"
CAMPAIGN = "bench-annotate"
TOPICS, SUBQUESTIONS = 100, 10
TEXT = (
    "The river rose after weeks of rain, and the delta towns were evacuated as the levees "
    "failed one after another; relief agencies counted the damage in the following months. "
)


def _copy_items(campaign_id: int, rows: list[tuple[int, int, int, dict]]) -> None:
    """COPY the items in (the generated columns ``load``/``is_control`` fill themselves)."""
    from django.db import connection

    from annotation.models import CampaignItem

    columns = (
        "campaign_id, kind, topic_id, subquestion_id, passage_id, payload, is_gold, "
        "is_attention_check, annotations_done, reserved_count"
    )
    table = CampaignItem._meta.db_table
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy,
    ):
        for topic_id, sq_id, passage_id, payload in rows:
            copy.write_row(
                (campaign_id, "passage_rating", topic_id, sq_id, passage_id, json.dumps(payload),
                 False, False, 0, 0)
            )  # fmt: skip


def build_campaign(n_items: int, overlap: int):
    """The bench campaign with ``n_items`` items; an earlier one of the same size is reset."""
    from django.db import connection, transaction

    from annotation.models import Assignment, Campaign
    from crux_app.dataio.pg_copy import insert_rows
    from crux_app.models import Collection, Judgment, Passage, SubQuestion, Topic

    campaign = Campaign.objects.filter(slug=CAMPAIGN).first()
    if campaign and campaign.items.count() == n_items:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {Assignment._meta.db_table} WHERE campaign_id = %s", [campaign.pk]
            )
            campaign.items.update(annotations_done=0, reserved_count=0)
            Judgment.objects.filter(topic__collection=campaign.collection).delete()
            campaign.overlap = overlap
            campaign.save(update_fields=["overlap"])
        return campaign
    Collection.objects.filter(name=COLLECTION).delete()
    per_topic = -(-n_items // (TOPICS * SUBQUESTIONS))  # passages per topic, rounded up
    with transaction.atomic():
        collection = Collection.objects.create(name=COLLECTION)
        topics = Topic.objects.bulk_create(
            Topic(collection=collection, external_id=f"t{t}", request=f"Report on event {t}.")
            for t in range(TOPICS)
        )
        subquestions = SubQuestion.objects.bulk_create(
            SubQuestion(topic=t, position=i, text=f"What happened in step {i} of {t.external_id}?")
            for t in topics
            for i in range(SUBQUESTIONS)
        )
        insert_rows(
            Passage,
            ["collection_id", "external_id", "text", "has_text"],
            (
                (collection.pk, f"{t.external_id}:0#{j}", f"{j}. {TEXT}", True)
                for t in topics
                for j in range(per_topic)
            ),
        )
        passages: dict[str, list[tuple[int, str]]] = {}
        rows = Passage.objects.filter(collection=collection).order_by("pk")
        for pk, ext in rows.values_list("pk", "external_id"):
            passages.setdefault(ext.split(":")[0], []).append((pk, ext))
        campaign = Campaign.objects.create(
            name="Bench: passage rating",
            slug=CAMPAIGN,
            collection=collection,
            task_type="passage_rating",
            overlap=overlap,
            reservation_seconds=600,
            selection={"mode": "bench", "items": n_items},
        )
        rows = []
        for sq in subquestions:
            topic = sq.topic
            for pk, ext in passages[topic.external_id]:
                payload = {
                    "topic": topic.external_id,
                    "request": topic.request,
                    "question": sq.text,
                    "position": sq.position,
                    "passage_id": ext,
                    "passage": f"{ext}. {TEXT}",
                }
                rows.append((topic.pk, sq.pk, pk, payload))
                if len(rows) == n_items:
                    break
            if len(rows) == n_items:
                break
        _copy_items(campaign.pk, rows)
    return campaign


def make_sessions(campaign, n: int) -> list[str]:
    """``n`` invited annotator accounts, logged in: their session keys."""
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore

    from annotation.accounts import invite_annotator

    keys = []
    user_model = get_user_model()
    for i in range(n):
        username = f"bench-annotator-{i:02d}"
        user = user_model.objects.filter(username=username).first()
        if user is None:
            user = user_model(username=username)
            user.set_unusable_password()
            user.save()
        invite_annotator(campaign, username)
        session = SessionStore()
        session[SESSION_KEY] = str(user.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = user.get_session_auth_hash()
        session.create()
        keys.append(session.session_key)
    return keys
