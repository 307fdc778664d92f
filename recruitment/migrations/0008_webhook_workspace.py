"""A study records its Prolific workspace, studies and submissions the time of the last webhook
event applied, and an event a digest of what its signature covers (unique: a replay under a new
event id is refused). Events stored before have no signed digest: each gets one of its own id."""

from django.db import migrations, models


def digests_of_old_events(apps, schema_editor):
    Event = apps.get_model("recruitment", "ProlificEvent")
    for pk in Event.objects.filter(digest__isnull=True).values_list("pk", flat=True).iterator():
        Event.objects.filter(pk=pk).update(digest=f"old:{pk}")


class Migration(migrations.Migration):

    dependencies = [
        ('recruitment', '0007_job_queued_at'),
    ]

    operations = [
        migrations.AddField(
            model_name='prolificevent',
            name='digest',
            field=models.CharField(editable=False, max_length=71, null=True, unique=True),
        ),
        migrations.RunPython(digests_of_old_events, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='prolificevent',
            name='digest',
            field=models.CharField(editable=False, max_length=71, unique=True),
        ),
        migrations.AddField(
            model_name='prolificevent',
            name='workspace_id',
            field=models.CharField(blank=True, help_text='The workspace whose secret signed it.', max_length=64),
        ),
        migrations.AddField(
            model_name='prolificstudy',
            name='event_at',
            field=models.DateTimeField(blank=True, editable=False, help_text='The signed time of the last webhook event applied.', null=True),
        ),
        migrations.AddField(
            model_name='prolificstudy',
            name='workspace_id',
            field=models.CharField(blank=True, editable=False, help_text='The Prolific workspace holding the study: only its webhook secret may act on it.', max_length=64),
        ),
        migrations.AddField(
            model_name='prolificsubmission',
            name='event_at',
            field=models.DateTimeField(blank=True, editable=False, help_text='The signed time of the last webhook event applied.', null=True),
        ),
    ]
