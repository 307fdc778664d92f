"""The columns an item file may have, for a study's protocol (what the import page lists), and a
sample file built from them and the study's pools, to download and fill in. Read from the import's
own definitions (``rows.KNOWN``, ``item_needs``), so the table says what the import accepts."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from ..protocol import Protocol
from ..protocol.item import ITEM_TEXT_LABELS
from .rows import KNOWN, REFERENCE_SEPARATOR, item_needs

# What each column means, with an example; a column of KNOWN without a line here is a bug (tested).
MEANINGS: dict[str, tuple[str, str]] = {
    "id": ("your own id of the item, unique in the study", "wedding-br-001"),
    "image": ("the image: a path inside the images zip, or a file already in the study's import folder", "br/001.png"),
    "country": ("the ISO code of the country pool the item goes to (every pool, by the study's routing)", "BR"),
    "model": ("the model that made the image, kept for analyses by model", "sdxl-1.0"),
    "category": ("a category of your own (e.g. the prompt's theme), kept for analyses", "wedding"),
    "is_example": ("1 for an item used only by the practice test (never assigned)", "0"),
    "metadata": ("any JSON object you want kept with the item (other unknown columns are kept too)", '{"seed": 42}'),
    "prompt": ("the prompt the image was made from", "A wedding feast in Brazil"),
    "caption": ("a caption shown with the image", "Guests dancing at a wedding"),
    "question": ("a question shown with the item", "What is the dish in the middle?"),
    "background": ("background text shown with the item", ""),
    "reference": (f"reference answers, separated by '{REFERENCE_SEPARATOR.strip()}'", "Feijoada | Stew"),
    "answer": ("a model's answer shown with the item", "Feijoada"),
    "candidates": (
        'a JSON list of {"id", "text"} (optionally "system") to choose among',
        '[{"id": "a", "text": "A wedding feast"}, {"id": "b", "text": "A street market"}]',
    ),
    "documents": (
        'a JSON list of {"title", "url", "text"} shown with the item',
        '[{"title": "Feijoada", "url": "https://en.wikipedia.org/wiki/Feijoada", "text": "A stew of beans"}]',
    ),
    "author": ("the Prolific id of the annotator who wrote the item, who is never given it", ""),
    "images": (
        'the 2 to 8 images a comparison shows: a JSON list of {"image", "model", and any parameters such as '
        '"seed"}, or the columns image_1 … image_8 with model_1 … and params_1 … (a JSON object)',
        '[{"image": "br/001-sdxl.png", "model": "sdxl", "seed": 7}, {"image": "br/001-flux.png", "model": "flux"}]',
    ),
}


@dataclass(frozen=True)
class Column:
    name: str
    required: bool
    meaning: str
    example: str


def columns_for(spec: Protocol) -> list[Column]:
    """The columns of an item file for ``spec``: the required ones first, then those its page
    shows, then the rest the import keeps."""
    needs = item_needs(spec)
    required = set(needs.required_columns) | {n for n, on in (("candidates", needs.candidates),
                                                                ("documents", needs.documents),
                                                                ("images", needs.images)) if on}
    shown = {name for name in spec.display.show if name in KNOWN}
    order = sorted(KNOWN, key=lambda n: (0 if n in required else 1 if n in shown else 2, KNOWN.index(n)))
    return [Column(n, n in required, MEANINGS[n][0], MEANINGS[n][1]) for n in order]


def sample_csv(spec: Protocol, countries: list[str]) -> str:
    """A CSV of two rows per pool (at most three pools) with the columns the protocol needs and
    shows, ready to be filled in."""
    columns = [c for c in columns_for(spec) if c.required or c.name in spec.display.show or c.name == "model"]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([c.name for c in columns])
    for country in (countries or ["BR"])[:3]:
        for n in (1, 2):
            row = []
            for c in columns:
                if c.name == "id":
                    row.append(f"{country.lower()}-{n:03d}")
                elif c.name == "country":
                    row.append(country)
                elif c.name == "image":
                    row.append(f"{country.lower()}/{n:03d}.png")
                elif c.name in ITEM_TEXT_LABELS and c.example:
                    row.append(f"{c.example} ({n})")
                else:
                    row.append(c.example)
            writer.writerow(row)
    return out.getvalue()

