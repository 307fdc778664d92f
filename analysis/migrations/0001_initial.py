# The analysis's models, moved from exports as fresh tables (exports 0007 drops the old ones).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import analysis.models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('studies', '0005_quota_reopened'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='MetricUpload',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('file', models.FileField(upload_to=analysis.models.metric_upload_path)),
                ('scores_file', models.FileField(help_text='The scores as parsed at upload (item id, country, metric, score): what the analysis reads.', upload_to=analysis.models.metric_upload_path)),
                ('original_name', models.CharField(max_length=255)),
                ('rows', models.PositiveIntegerField(help_text='Scores kept (lines of unknown items or countries left out).')),
                ('metrics', models.JSONField(default=list, help_text='The metric names, in order of first appearance.')),
                ('summary', models.JSONField(default=dict, help_text='What the parser reported: lines, unknown items and countries.')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('study', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='metric_uploads', to='studies.study')),
                ('uploaded_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ('-created_at', '-id'),
                'get_latest_by': ('created_at', 'id'),
            },
        ),
        migrations.CreateModel(
            name='AnalysisRun',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed')], default='queued', max_length=10)),
                ('progress', models.PositiveSmallIntegerField(default=0, help_text='0–100')),
                ('error', models.TextField(blank=True)),
                ('data_fingerprint', models.CharField(blank=True, help_text='The annotations this job saw; a newer one makes it stale.', max_length=200)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('result', models.JSONField(blank=True, null=True)),
                ('summary', models.JSONField(blank=True, help_text='The result with its long tables cut to their first rows: what the page reads.', null=True)),
                ('complete_only', models.BooleanField(default=False, help_text='Reports and metric correlation restricted to prompts with images from every model.')),
                ('resamples', models.PositiveIntegerField(default=1000, help_text="Bootstrap resamples of the units behind each alpha's interval (0: none).")),
                ('seed', models.PositiveIntegerField(default=0, help_text='Seed of the bootstrap: the same seed gives the same interval.')),
                ('requested_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('study', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='analysis_runs', to='studies.study')),
            ],
            options={
                'ordering': ['-created_at', '-id'],
                'abstract': False,
                'constraints': [models.CheckConstraint(condition=models.Q(('resamples__lte', 10000)), name='analysis_resamples_at_most_max')],
            },
        ),
    ]
