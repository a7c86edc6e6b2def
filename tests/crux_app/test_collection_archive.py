"""``export_collection`` / ``import_collection``: the demo collections round trip with equal
API answers (leaderboard, agreement, nugget scores, judgments, campaign labels) and exports,
byte for byte; a tampered or newer-format archive, or a name in use, is refused."""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from crux_app.models import Collection, Judge, Judgment, Topic
from crux_app.models.audit import AuditEvent
from tests.crux_app import demo_pages
from tests.crux_app.factories import make_small_collection

pytestmark = pytest.mark.django_db


# Ids differ between installs (the restored rows get new ones): in URLs and id fields only.
IDS = (
    (re.compile(r'("(?:id|[a-z_]+_id)": )\d+'), r"\1ID"),
    (re.compile(r"(?<=/)(collections|topics|outputs|campaigns)/\d+(?=/)"), r"\1/ID"),
    (re.compile(r"(?<=[?&;])collection=\d+"), "collection=ID"),
    (re.compile(r"sha256 of the exact body: [0-9a-f]+"), "sha256"),
)


def without_ids(text: str) -> str:
    for pattern, replacement in IDS:
        text = pattern.sub(replacement, text)
    return text


def rendered_by_name(client: Client) -> dict[str, str]:
    """Every API answer and export command's file of the demo, keyed by names (not ids), and
    each collection's leaderboard, agreement and nugget pages."""
    answers = {url: demo_pages._get(client, url)[0] for url in demo_pages.api_urls()}
    answers.update(dict(demo_pages.command_exports()))
    for collection in Collection.objects.all():
        for page in ("leaderboard", "agreement", "nuggets"):
            url = f"/collections/{collection.pk}/{page}/"
            answers[f"page {collection.name}/{page}"] = demo_pages._get(client, url)[0]
    return answers


def test_the_demo_collections_round_trip_with_equal_answers_and_exports(tmp_path) -> None:
    demo_pages.load_demo_with_fixed_ids()
    client = Client()
    client.force_login(get_user_model().objects.get(username="researcher"))
    before = rendered_by_name(client)
    names = list(Collection.objects.order_by("pk").values_list("name", flat=True))
    judgments = Judgment.objects.count()
    for name in names:
        out = tmp_path / f"{name}.tar.gz"
        call_command(
            "export_collection",
            "--collection",
            name,
            "--out",
            str(out),
            "--with-accounts",
            stdout=StringIO(),
        )
    Collection.objects.all().delete()
    assert Judgment.objects.count() == 0
    for name in names:
        call_command("import_collection", str(tmp_path / f"{name}.tar.gz"), stdout=StringIO())
    assert Judgment.objects.count() == judgments
    after = rendered_by_name(client)
    assert sorted(after) == sorted(before)
    differing = [key for key in before if without_ids(before[key]) != without_ids(after[key])]
    assert differing == []
    # What names no row id is equal byte for byte: every label, nugget and campaign export,
    # the leaderboards, nugget scores and judgments.
    exact = [
        key
        for key in before
        if not key.startswith(("/", "page "))
        or key.endswith(("/leaderboard/", "/nugget-scores/"))
        or "/judgments/" in key
    ]
    assert len(exact) > 20
    assert [key for key in exact if before[key] != after[key]] == []


def archive_of(tmp_path: Path, name: str = "duc04", *accounts: str) -> Path:
    out = tmp_path / f"{name}.tar.gz"
    call_command(
        "export_collection", "--collection", name, "--out", str(out), *accounts, stdout=StringIO()
    )
    return out


def rewritten(path: Path, change) -> Path:
    """A copy of the archive with ``change(manifest, members)`` applied to its contents."""
    with tarfile.open(path, "r:gz") as archive:
        members = {m.name: archive.extractfile(m).read() for m in archive.getmembers()}
    manifest = json.loads(members.pop("manifest.json"))
    change(manifest, members)
    members["manifest.json"] = json.dumps(manifest).encode()
    out = path.with_name("changed-" + path.name)
    with tarfile.open(out, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out


def refusal(path: Path, *args: str) -> str:
    with pytest.raises(CommandError) as refused:
        call_command("import_collection", str(path), *args, stdout=StringIO())
    return str(refused.value)


def test_an_archive_restores_beside_its_original_under_a_new_name(tmp_path) -> None:
    small = make_small_collection()
    path = archive_of(tmp_path)
    with tarfile.open(path, "r:gz") as archive:
        manifest = json.loads(archive.extractfile("manifest.json").read())
    assert manifest["format_version"] == 1 and manifest["code_version"]
    counts = {t["model"]: t["rows"] for t in manifest["tables"]}
    assert counts["crux_app.Topic"] == 2 and counts["crux_app.Judgment"] > 0
    assert {j["name"]: j["model_id"] for j in manifest["judges"]}["smollm"] == "model/smollm"
    # the audit trail travels for the record (the import is recorded by this install's own)
    assert [t["model"] for t in manifest["history"]] == ["crux_app.AuditEvent"]
    assert "a collection named 'duc04' exists" in refusal(path)
    call_command("import_collection", str(path), "--as", "duc04-copy", stdout=StringIO())
    copy = Collection.objects.get(name="duc04-copy")
    recorded = AuditEvent.objects.get(kind="archive.import", collection_id=copy.pk)
    assert recorded.detail["archived_as"] == "duc04"
    assert copy.pk != small.collection.pk
    for model in (Topic, Judgment):
        field = "collection" if model is Topic else "topic__collection"
        assert (
            model.objects.filter(**{field: copy}).count()
            == model.objects.filter(**{field: small.collection}).count()
        )
    # judges are shared: the copy's judgments are the same judges'
    assert Judge.objects.filter(name="smollm").count() == 1
    assert set(
        Judgment.objects.filter(topic__collection=copy).values_list("judge__name", "rating")
    ) == set(
        Judgment.objects.filter(topic__collection=small.collection).values_list(
            "judge__name", "rating"
        )
    )


def test_annotators_leave_under_pseudonyms_unless_accounts_are_asked_for(tmp_path) -> None:
    small = make_small_collection()
    person = get_user_model().objects.create_user("annotator1", password="secret-pass-1")
    Judge.objects.filter(pk=small.human.pk).update(user=person)

    def text(path: Path) -> str:
        with tarfile.open(path, "r:gz") as archive:
            return "".join(archive.extractfile(m).read().decode() for m in archive.getmembers())

    hidden = text(archive_of(tmp_path))
    assert "annotator1" not in hidden and "user-" in hidden
    assert "secret-pass" not in hidden and "pbkdf2" not in hidden
    shown = text(archive_of(tmp_path, "duc04", "--with-accounts"))
    assert "annotator1" in shown and "pbkdf2" not in shown


def test_a_tampered_archive_is_refused_and_nothing_is_written(tmp_path) -> None:
    make_small_collection()
    path = archive_of(tmp_path)

    def flip(manifest: dict, members: dict) -> None:
        data = bytearray(members["rows/crux_app.Topic.jsonl"])
        data[10] ^= 0x01
        members["rows/crux_app.Topic.jsonl"] = bytes(data)

    message = refusal(rewritten(path, flip), "--as", "tampered")
    assert "rows/crux_app.Topic.jsonl is corrupted" in message
    assert not Collection.objects.filter(name="tampered").exists()
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    refusal(path, "--as", "tampered")
    assert not Collection.objects.filter(name="tampered").exists()


def test_a_newer_format_is_refused(tmp_path) -> None:
    make_small_collection()

    def newer(manifest: dict, members: dict) -> None:
        manifest["format_version"] = manifest["format_version"] + 1

    message = refusal(rewritten(archive_of(tmp_path), newer), "--as", "later")
    assert "archive format version 2 is newer than this install reads (1)" in message


def test_a_failure_halfway_leaves_nothing(tmp_path) -> None:
    make_small_collection()

    def dangling(manifest: dict, members: dict) -> None:
        # the last rows point at a topic the archive does not hold (checksums made to match)
        member = "rows/crux_app.Judgment.jsonl"
        rows = [json.loads(line) for line in members[member].splitlines()]
        rows[-1]["fields"]["topic_id"] = 999_999
        members[member] = b"".join(json.dumps(r).encode() + b"\n" for r in rows)
        for table in manifest["tables"]:
            if table["member"] == member:
                table["sha256"] = hashlib.sha256(members[member]).hexdigest()

    topics = Topic.objects.count()
    message = refusal(rewritten(archive_of(tmp_path), dangling), "--as", "half")
    assert "crux_app.Judgment.topic points at a row the archive does not hold" in message
    assert not Collection.objects.filter(name="half").exists()
    assert Topic.objects.count() == topics


def test_an_ensemble_judge_arrives_with_its_members_where_the_install_lacks_it(tmp_path) -> None:
    from django.utils import timezone

    from crux_app.models.ensemble import EnsembleBuild, JudgeEnsemble, JudgeEnsembleMember

    small = make_small_collection()
    judge = Judge.objects.create(name="ensemble:both", kind=Judge.Kind.ENSEMBLE)
    ensemble = JudgeEnsemble.objects.create(judge=judge, combiner="mean", min_members=1)
    for position, member in enumerate((small.llm, small.human)):
        JudgeEnsembleMember.objects.create(ensemble=ensemble, judge=member, position=position)
    EnsembleBuild.objects.create(
        ensemble=ensemble, collection=small.collection, built_at=timezone.now()
    )
    path = archive_of(tmp_path)
    Collection.objects.all().delete()
    judge.delete()  # another install: the ensemble is not there
    call_command("import_collection", str(path), stdout=StringIO())
    restored = JudgeEnsemble.objects.get(judge__name="ensemble:both")
    assert list(restored.members.values_list("judge__name", flat=True)) == [
        small.llm.name,
        small.human.name,
    ]
    assert restored.builds.get().collection.name == "duc04"
