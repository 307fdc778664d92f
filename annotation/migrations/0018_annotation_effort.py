from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0017_practice_test_words'),
    ]

    operations = [
        migrations.AddField(
            model_name='annotation',
            name='effort',
            field=models.JSONField(blank=True, help_text='Honest-effort signals the page counted while the item was shown (characters pasted and typed per text answer, times the page was left, seconds hidden; never the text itself): for review only. Null: none were sent, or they were malformed (annotation.effort).', null=True),
        ),
    ]
