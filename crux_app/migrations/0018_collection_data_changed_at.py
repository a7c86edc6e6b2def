from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("crux_app", "0017_unit_versions"),
    ]

    operations = [
        # When the data version last moved; pages computed from changing data say "as of" it.
        migrations.AddField(
            model_name="collection",
            name="data_changed_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
    ]
