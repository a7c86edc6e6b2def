from django.db import migrations, models

import crux_app.models.collection


def give_each_collection_its_own_epoch(apps, schema_editor):
    # AddField computes a callable default once: every existing row would share one token.
    Collection = apps.get_model("crux_app", "Collection")
    for pk in Collection.objects.values_list("pk", flat=True):
        Collection.objects.filter(pk=pk).update(
            unit_epoch=crux_app.models.collection.new_unit_token()
        )


class Migration(migrations.Migration):
    dependencies = [
        ("crux_app", "0016_job_model_usage_and_audit_event_kind"),
    ]

    operations = [
        migrations.AddField(
            model_name="collection",
            name="unit_epoch",
            field=models.BigIntegerField(
                default=crux_app.models.collection.new_unit_token, editable=False
            ),
        ),
        migrations.AddField(
            model_name="topic",
            name="unit_version",
            field=models.BigIntegerField(db_default=0, default=0, editable=False),
        ),
        migrations.RunPython(give_each_collection_its_own_epoch, migrations.RunPython.noop),
    ]
