"""API tokens narrowed to one workspace and to reading (crux_app.access.Access.of)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("api", "0003_apitoken_expires_at"),
        ("crux_app", "0015_workspaces"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="read_only",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="apitoken",
            name="workspace",
            field=models.ForeignKey(
                blank=True,
                help_text="empty: every workspace of its user",
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="api_tokens",
                to="crux_app.workspace",
            ),
        ),
    ]
