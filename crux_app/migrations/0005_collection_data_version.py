import uuid

from django.db import migrations, models


def give_each_collection_its_own_version(apps, schema_editor):
    # AddField computes a callable default once: every existing row would share one token.
    Collection = apps.get_model("crux_app", "Collection")
    for pk in Collection.objects.values_list("pk", flat=True):
        Collection.objects.filter(pk=pk).update(data_version=uuid.uuid4())


class Migration(migrations.Migration):
    dependencies = [
        ("crux_app", "0004_job_cancel_and_eta"),
    ]

    operations = [
        migrations.AddField(
            model_name="collection",
            name="data_version",
            field=models.UUIDField(default=uuid.uuid4, editable=False),
        ),
        migrations.RunPython(give_each_collection_its_own_version, migrations.RunPython.noop),
    ]
