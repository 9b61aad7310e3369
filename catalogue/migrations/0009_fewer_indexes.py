"""Drop single-column indexes that a two-column index starting with the same column covers.

authorship (work), (author); worktopic (work), (topic); grant (work); and
work.normalized_title with its pattern index: every lookup they served is served
by authorship_once_per_work, authorship_author_idx, work_topic_once,
worktopic_topic_idx, grant_once and work_title_year_idx. Each import writes
every index of these tables, about four authorships and two topic links per work.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('publications', '0008_worksearch'),
    ]

    operations = [
        migrations.AlterField(
            model_name='authorship',
            name='author',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='authorships', to='publications.author'),
        ),
        migrations.AlterField(
            model_name='authorship',
            name='work',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='authorships', to='publications.work'),
        ),
        migrations.AlterField(
            model_name='grant',
            name='work',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='grants', to='publications.work'),
        ),
        migrations.AlterField(
            model_name='work',
            name='normalized_title',
            field=models.CharField(blank=True, max_length=500),
        ),
        migrations.AlterField(
            model_name='worktopic',
            name='topic',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='work_topics', to='publications.topic'),
        ),
        migrations.AlterField(
            model_name='worktopic',
            name='work',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='work_topics', to='publications.work'),
        ),
    ]
