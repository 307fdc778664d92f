"""python manage.py panel_links STUDY --pool CC --ids FILE [--out CSV]: signed entry links of a pool on a URL
panel (``studies.panels``) for a list of participant ids (one a line, or comma-separated; ``-``: standard input),
as ``participant_id,link`` CSV. The operator's command: the study is named by its id, whoever owns it."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.links import panel_signed_links
from studies import panels
from studies.models import CountryPool, PoolPanel, panel_of


class Command(BaseCommand):
    help = "Signed entry links of a pool on a URL panel, one per participant id, as CSV."

    def add_arguments(self, parser):
        parser.add_argument("study", type=int, help="The study's id.")
        parser.add_argument("--pool", required=True, help="The pool's country code, e.g. KE.")
        parser.add_argument("--ids", required=True, help="A file of participant ids, one a line ('-': standard input).")
        parser.add_argument("--out", default="", help="Write the CSV here (default: standard output).")

    def handle(self, *args, study, pool, ids, out, **options):
        found = CountryPool.objects.select_related("study", "panel").filter(study_id=study, country=pool.upper())
        chosen = found.first()
        if chosen is None:
            raise CommandError(f"Study {study} has no pool for {pool.upper()}.")
        panel = panel_of(chosen)
        if panel is None:
            raise CommandError(
                f"The pool for {chosen.country_name} recruits on Prolific: its links come from Prolific."
            )
        if panel.verification != PoolPanel.Verification.SIGNED:
            raise CommandError(f"The pool for {chosen.country_name} takes {panel.name}'s ids unsigned: it has one "
                               "shared link, no per-participant ones.")
        try:
            text = sys.stdin.read() if ids == "-" else Path(ids).read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"Cannot read {ids}: {exc.strerror}") from None
        given, bad = panels.ids_read(text)
        if bad:
            raise CommandError(f"Not an id: {', '.join(bad[:5])} (letters, digits, dots, dashes, underscores; 64 at "
                               "most). Nothing written.")
        if not given:
            raise CommandError("No id in the file.")
        csv_text = panels.links_csv(panel_signed_links(chosen, panel, given))
        if out:
            Path(out).write_text(csv_text, encoding="utf-8")
            self.stderr.write(f"{len(given)} links written to {out}.")
        else:
            self.stdout.write(csv_text, ending="")
