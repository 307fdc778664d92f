"""python manage.py presets: the ready protocols a study can be created from."""

import re

from django.core.management.base import BaseCommand

from studies import protocol as protocol_engine
from studies.services import Preset, presets_list


def _field_summary(f: protocol_engine.Field) -> str:
    if f.kind.container:
        return f"{f.key} ({f.type}: {', '.join(_field_summary(sub) for sub in f.fields)})"
    return f"{f.key} ({f.type}{', ' + f.level if f.level else ''})"


SENTENCE_END = re.compile(r"(?<!e\.g)(?<!i\.e)\.\s+(?=[A-Z])")


def _first_sentence(text: str) -> str:
    end = SENTENCE_END.search(text)
    return text if end is None else text[: end.start() + 1]


def preset_summary(preset: Preset, *, full: bool = False) -> list[str]:
    spec = protocol_engine.parse_spec(preset.protocol)
    routing = preset.study.get("routing", "country")
    return [
        f"{preset.name} — {preset.title}",
        f"  {preset.description if full else _first_sentence(preset.description)}",
        f"  fields: {'; '.join(_field_summary(f) for f in spec.fields)}",
        f"  routing: {routing}; shows: {', '.join(spec.display.show)}"
        + (f"; skip: {len(spec.skip.reasons)} reasons" if spec.skip else ""),
    ]


class Command(BaseCommand):
    help = "List the presets: name, title, description, fields (key, type, level). -v 2 prints whole descriptions."

    def handle(self, *args, verbosity: int, **options):
        for preset in presets_list():
            self.stdout.write("\n".join(preset_summary(preset, full=verbosity > 1)) + "\n\n")
        self.stdout.write("Create a study from one: python manage.py create_study --preset NAME --owner USERNAME")
