"""python manage.py create_study --preset NAME --owner USERNAME: a study running a preset, with its pools."""

import re

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from annotation.links import entry_link
from studies.services import pool_create, preset_get, study_create_from_preset

COUNTRY_RE = re.compile(r"^[A-Z]{2}$")


def pools_parse(text: str) -> list[tuple[str, str]]:
    """``IN:India,JP:Japan`` as [("IN", "India"), ("JP", "Japan")]; ValueError naming the bad entry."""
    pools: list[tuple[str, str]] = []
    for entry in (part.strip() for part in text.split(",")):
        code, sep, name = (s.strip() for s in entry.partition(":"))
        code = code.upper()
        if not sep or not COUNTRY_RE.match(code) or not name:
            raise ValueError(f"{entry!r} is not CODE:Country name with a two-letter ISO code (e.g. IN:India)")
        if code in (c for c, _ in pools):
            raise ValueError(f"country {code} is given twice")
        pools.append((code, name))
    return pools


class Command(BaseCommand):
    help = (
        "Create a study from a preset (see `manage.py presets`): the preset's protocol, a copy the owner may edit "
        "in the admin, and its study settings; completion codes are generated. Optionally add country pools."
    )

    def add_arguments(self, parser):
        parser.add_argument("--preset", required=True, help="The preset's name, e.g. caire-relevance.")
        parser.add_argument("--owner", required=True, help="Username of the researcher who will own the study.")
        parser.add_argument("--name", default="", help="The study's name (default: the preset's title).")
        parser.add_argument("--pools", default="", help="Country pools, e.g. IN:India,JP:Japan.")
        parser.add_argument(
            "--annotations-per-item", type=int, default=None, help="Annotations wanted per item in each pool."
        )

    def handle(self, *args, preset: str, owner: str, name: str, pools: str, annotations_per_item, **options):
        try:
            preset_get(preset)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        user = get_user_model().objects.filter(username=owner).first()
        if user is None:
            raise CommandError(f"no user named {owner!r}: create the researcher first")
        try:
            countries = pools_parse(pools) if pools.strip() else []
        except ValueError as exc:
            raise CommandError(f"--pools: {exc}") from None
        if annotations_per_item is not None and annotations_per_item < 1:
            raise CommandError("--annotations-per-item must be at least 1")
        pool_settings = {} if annotations_per_item is None else {"annotations_per_item": annotations_per_item}

        with transaction.atomic():
            study = study_create_from_preset(owner=user, preset=preset, name=name)
            created = [pool_create(study=study, country=c, country_name=n, **pool_settings) for c, n in countries]

        write = self.stdout.write
        write(self.style.SUCCESS(f"Created study {study.pk} “{study.name}” from preset {preset}, owned by {owner}."))
        write(f"  routing: {study.routing}; status: {study.status}")
        write("  completion codes (enter them in the Prolific study):")
        for label, code in (
            ("completed", study.code_completed), ("failed the practice test", study.code_failed_mock),
            ("not eligible", study.code_not_eligible), ("no consent", study.code_no_consent),
            ("skipped every item", study.code_all_skipped), ("failed attention checks", study.code_failed_check),
        ):
            write(f"    {label}: {code}")
        for pool in created:
            write(f"  pool {pool.country} {pool.country_name}, {pool.annotations_per_item} annotations per item:")
            write(f"    {entry_link(pool)}")
        if not user.is_staff:
            write(self.style.WARNING(f"  {owner} is not staff: they cannot open the study in the admin."))
