# AnalysisRun and MetricUpload moved to the analysis app as fresh tables: no deployment held data
# yet. An export points at its analysis, so the exports of the old runs go with them.

import django.db.models.deletion
from django.db import migrations, models


def drop_exports_of_old_runs(apps, schema_editor):
    apps.get_model("exports", "ExportJob").objects.all().delete()


class Migration(migrations.Migration):

    dependencies = [
        ('analysis', '0001_initial'),
        ('exports', '0006_analysis_summary'),
    ]

    operations = [
        migrations.RunPython(drop_exports_of_old_runs, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='exportjob',
            name='analysis',
            field=models.ForeignKey(on_delete=django.db.models.deletion.RESTRICT, related_name='exports', to='analysis.analysisrun'),
        ),
        migrations.RemoveField(
            model_name='metricupload',
            name='study',
        ),
        migrations.RemoveField(
            model_name='metricupload',
            name='uploaded_by',
        ),
        migrations.DeleteModel(
            name='AnalysisRun',
        ),
        migrations.DeleteModel(
            name='MetricUpload',
        ),
    ]
