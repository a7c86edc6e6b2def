"""Shapes of the API's shared objects (collections, jobs) and of its request bodies."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils import timezone
from rest_framework import serializers

from crux_app.collection_names import MAX_LENGTH, collection_name_problem
from crux_app.models import Collection, Job

EXPORT_KIND = "export"  # api.export_job.KIND (that module imports the job runner)
# Jobs whose file is downloaded as an export: api.collection_archive_job.KIND too.
DOWNLOAD_KINDS = (EXPORT_KIND, "collection_archive")


class CollectionSerializer(serializers.ModelSerializer):
    counts = serializers.SerializerMethodField()
    workspace = serializers.SlugRelatedField(slug_field="name", read_only=True)

    class Meta:
        model = Collection
        fields = ["id", "name", "description", "kind", "workspace", "created_at", "counts"]

    def get_counts(self, collection: Collection) -> dict[str, int]:
        """The collection page's counts (``crux_app.queries.counted``) when they were read."""
        from crux_app.queries import COLLECTION_COUNTS

        return {
            name.removeprefix("n_"): getattr(collection, name)
            for name in COLLECTION_COUNTS
            if hasattr(collection, name)
        }


class CollectionCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=MAX_LENGTH, trim_whitespace=False)
    description = serializers.CharField(required=False, allow_blank=True, max_length=10_000)
    kind = serializers.ChoiceField(choices=Collection.Kind.choices, required=False)
    workspace = serializers.CharField(
        max_length=MAX_LENGTH,
        required=False,
        help_text="the workspace's name; default: the only one you may add collections to",
    )

    def validate_name(self, name: str) -> str:
        problem = collection_name_problem(name)
        if problem:
            raise serializers.ValidationError(problem)
        if Collection.objects.filter(name=name).exists():
            raise serializers.ValidationError(f"a collection named {name!r} exists")
        return name


class JobSerializer(serializers.ModelSerializer):
    collection = serializers.SlugRelatedField(slug_field="name", read_only=True)
    download = serializers.SerializerMethodField()

    class Meta:
        model = Job
        fields = [
            "id", "kind", "state", "done", "total", "message", "params", "collection", "download",
        ]  # fmt: skip
        read_only_fields = fields

    def get_download(self, job: Job) -> dict[str, Any] | None:
        """An export job's file once written and until it expires: its URL (below
        ``/api/v1/``, absolute when the request is known), name, rows, size, expiry."""
        export = getattr(job, "export", None) if job.kind in DOWNLOAD_KINDS else None
        if export is None or export.expires_at <= timezone.now():
            return None
        url = reverse("api-export-download", args=[job.pk])
        request = self.context.get("request")
        return {
            "url": request.build_absolute_uri(url) if request is not None else url,
            "filename": export.filename,
            "rows": export.rows,
            "size": export.size,
            "expires_at": export.expires_at.isoformat(),
        }


class JobEnvelopeSerializer(serializers.Serializer):
    job = JobSerializer()


class JobStartSerializer(serializers.Serializer):
    kind = serializers.CharField(max_length=64)
    params = serializers.DictField(required=False, default=dict)


class ImportSerializer(serializers.Serializer):
    """The multipart body of an import (documentation: the view validates with the upload
    page's form, which the format's parameters extend)."""

    format = serializers.CharField()
    file = serializers.FileField(required=False)
    folder = serializers.ListField(child=serializers.FileField(), required=False)
    relative_paths = serializers.CharField(required=False)
    split = serializers.CharField(required=False)
    tau = serializers.IntegerField(required=False)
    run_name = serializers.CharField(required=False)
    judge = serializers.CharField(required=False)
    judge_kind = serializers.CharField(required=False)
    model_id = serializers.CharField(required=False)
    prompt_version = serializers.CharField(required=False)
    add_missing_passages = serializers.BooleanField(required=False)
    workspace = serializers.CharField(
        required=False, help_text="a new collection's workspace (as for creating one)"
    )


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    errors = serializers.DictField(child=serializers.ListField(), required=False)
