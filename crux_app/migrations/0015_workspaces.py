"""Workspaces. An upgraded install puts every existing collection in one workspace ``default``
whose members are today's researchers (superusers as its managers), so nobody loses access."""

import crux_app.collection_names
import crux_app.models.workspace
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def put_collections_in_default(apps, schema_editor):
    Workspace = apps.get_model("crux_app", "Workspace")
    WorkspaceMember = apps.get_model("crux_app", "WorkspaceMember")
    Collection = apps.get_model("crux_app", "Collection")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    workspace, _ = Workspace.objects.get_or_create(name="default")
    Collection.objects.filter(workspace__isnull=True).update(workspace=workspace)
    for user in User.objects.filter(is_superuser=True):
        WorkspaceMember.objects.get_or_create(
            workspace=workspace, user=user, defaults={"role": "manager"}
        )
    for user in User.objects.filter(groups__name="researcher").distinct():
        WorkspaceMember.objects.get_or_create(
            workspace=workspace, user=user, defaults={"role": "researcher"}
        )


class Migration(migrations.Migration):
    dependencies = [
        ("crux_app", "0014_audit_event"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Workspace",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "name",
                    models.CharField(
                        max_length=200,
                        unique=True,
                        validators=[crux_app.collection_names.validate_collection_name],
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
            ],
            options={
                "ordering": ["name"],
            },
        ),
        migrations.AddField(
            model_name="collection",
            name="workspace",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="collections",
                to="crux_app.workspace",
            ),
        ),
        migrations.CreateModel(
            name="WorkspaceMember",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "role",
                    models.CharField(
                        choices=[
                            ("manager", "Manager (members, settings, deletion)"),
                            ("researcher", "Researcher (everything on its collections)"),
                            ("viewer", "Viewer (read only)"),
                        ],
                        default="researcher",
                        max_length=16,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="workspace_memberships",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "workspace",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="members",
                        to="crux_app.workspace",
                    ),
                ),
            ],
            options={
                "ordering": ["workspace__name", "user__username"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("workspace", "user"), name="one_role_per_workspace"
                    )
                ],
            },
        ),
        migrations.RunPython(put_collections_in_default, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="collection",
            name="workspace",
            field=models.ForeignKey(
                default=crux_app.models.workspace.default_workspace_pk,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="collections",
                to="crux_app.workspace",
            ),
        ),
    ]
