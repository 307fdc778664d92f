"""python manage.py demo_setup [--reset]: a demo study for every preset, to click through locally.

Each folder of fixtures/demo/ is one demo: ``study.json`` (the study, its two pools and its mock
questions) and ``items.csv`` or ``items.jsonl`` (its items, in import_items' format: examples for
researchers of every item part). Idempotent: a second run finds the studies and only prints the
links again. The items go through the real import path (studies.importing.items_import); their
images are drawn here with Pillow (shapes and a few key words, no downloads) the first time they
are missing.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, OutputWrapper
from django.db import transaction
from django.urls import reverse

from annotation.links import entry_link
from studies.demo import DEFAULT_FIXTURES, Demo, DemoError, demos_load, study_build
from studies.demo_images import images_generate
from studies.models import CountryPool, Study
from studies.services import researcher_create, study_delete

DEMO_USERNAME = "researcher"
DEMO_PASSWORD = "tessera-demo"  # only for the local demo; DEMO_PASSWORD in the environment overrides it


def demo_pid(pool: CountryPool) -> str:
    """The demo participant of a pool: one of its own per pool of every study (numbered by the pool),
    so that a researcher walking two studies, or two pools, is two participants, never one mixed up."""
    return f"demo{pool.pk:019d}"


def entry_url(pool: CountryPool) -> str:
    """The demo participant's entry link of ``pool``, as Prolific would send them."""
    return entry_link(pool, {"PROLIFIC_PID": demo_pid(pool), "STUDY_ID": "demostudy",
                             "SESSION_ID": f"demosession{pool.pk}"})


class Command(BaseCommand):
    help = "Create (once) a demo study for every preset with a researcher account, and print their links."

    def add_arguments(self, parser):
        parser.add_argument("--reset", action="store_true", help="Delete the demo studies and create them again.")
        parser.add_argument(
            "--fixtures", type=Path, default=DEFAULT_FIXTURES,
            help="A folder of demo folders (each with study.json and items.csv or items.jsonl), or one demo folder.",
        )

    def handle(self, *args, reset: bool, fixtures: Path, verbosity: int = 1, **options):
        if verbosity == 0:  # say nothing (tests); the work is the same
            self.stdout = OutputWrapper(io.StringIO())
        password = os.environ.get("DEMO_PASSWORD") or DEMO_PASSWORD
        try:
            demos = demos_load(fixtures)
            drawn = sum(images_generate(rows_file=demo.rows_file, folder=demo.folder / "images") for demo in demos)
            if drawn:
                self.stdout.write(f"Drew {drawn} demo images under {fixtures}")
            with transaction.atomic():
                researcher = researcher_create(username=DEMO_USERNAME, password=password)
                studies = [(demo, self._study(demo, researcher, reset=reset)) for demo in demos]
        except DemoError as exc:
            raise CommandError(str(exc)) from None
        self._print_links(studies, password_from_env=bool(os.environ.get("DEMO_PASSWORD")))

    def _study(self, demo: Demo, researcher, *, reset: bool) -> Study:
        study = Study.objects.filter(owner=researcher, name=demo.name).first()
        if study is not None and reset:
            pk = study.pk
            study_delete(study=study)
            self.stdout.write(f"Deleted the demo study {demo.name!r} (id {pk}).")
            study = None
        if study is None:
            study, report = study_build(demo=demo, owner=researcher)
            self.stdout.write(f"Created the demo study {study.name!r} (id {study.pk}). {report.summary()}.")
        else:
            self.stdout.write(f"The demo study {study.name!r} (id {study.pk}) exists; --reset recreates it.")
        return study

    def _print_links(self, studies: list[tuple[Demo, Study]], *, password_from_env: bool) -> None:
        shown = "(the value of DEMO_PASSWORD)" if password_from_env else (
            f"{DEMO_PASSWORD}   (fixed password of this local demo only; set DEMO_PASSWORD to choose another)"
        )
        write = self.stdout.write
        write("\nResearcher login")
        write(f"  {settings.SITE_URL}{reverse('login')}")
        write(f"  username: {DEMO_USERNAME}")
        write(f"  password: {shown}")
        write("\nAnnotator entry links (as Prolific would send them; each link its own participant)")
        write("  A session opens in the browser that opened its link first; another browser is asked for its\n"
              "  resume code, shown at the top of the first browser's pages.")
        for demo, study in studies:
            write(f"\n  {study.name}  (preset {demo.preset}, study id {study.pk})")
            for pool in study.pools.order_by("country"):
                write(f"    {pool.country_name} ({pool.country}), participant {demo_pid(pool)}: {entry_url(pool)}")
