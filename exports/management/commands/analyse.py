"""python manage.py analyse STUDY [--json]: the study's analysis, run here and now."""

import json

from django.core.management.base import BaseCommand, CommandError

from exports.services import analysis_run, analysis_start
from studies.models import Study


class Command(BaseCommand):
    help = (
        "Run a study's analysis in this process (no queue) and print it; --json prints the whole "
        "result as one JSON document, the same the results page shows. The run is recorded like "
        "one started from the page."
    )

    def add_arguments(self, parser):
        parser.add_argument("study", type=int, help="The study's id.")
        parser.add_argument("--json", action="store_true", help="Print the result as JSON.")

    def handle(self, *args, study: int, json: bool = False, **options):
        target = Study.objects.filter(pk=study).first()
        if target is None:
            raise CommandError(f"no study with id {study}")
        run = analysis_run(run_id=analysis_start(study=target, user=None, queue=False).pk)
        if run.status != run.Status.DONE:
            raise CommandError(f"the analysis failed: {run.error or run.status}")
        if json:
            self.stdout.write(_dumps(run.result))
            return
        self.stdout.write(f"Analysis of {target.name} (run {run.pk}), data {run.data_fingerprint}")
        for field in run.result.get("fields", []):
            overall = field.get("overall", {})
            alpha = overall.get("alpha")
            shown = "—" if alpha is None else f"{alpha:.3f}"
            self.stdout.write(
                f"  {field.get('key')} ({field.get('level')}): alpha {shown}, "
                f"{overall.get('n_units')} units, {overall.get('n_ratings')} ratings"
            )


def _dumps(result) -> str:
    return json.dumps(result, indent=2, ensure_ascii=False, default=str)
