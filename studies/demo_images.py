"""The demo studies' pictures, drawn with Pillow the first time they are missing: a simple scene
for each row's motif and a few key words on a banner (no downloads)."""

from __future__ import annotations

import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from studies.importing import read_rows

SIZE = W, H = 512, 384
GROUND_Y = 250
PALETTES = {  # (sky, ground, accents): model-b paints at dusk, model-a (and a photo) at noon
    "model-a": ((170, 205, 235), (150, 190, 120), [(200, 60, 50), (240, 170, 40), (60, 90, 170), (120, 60, 140)]),
    "model-b": ((245, 190, 150), (120, 110, 90), [(170, 30, 60), (250, 200, 80), (30, 120, 110), (90, 50, 40)]),
}


# --- demo images (no Django) -------------------------------------------------------------------


def _figure(d: ImageDraw.ImageDraw, x: int, color, *, scale: float = 1.0, dress: bool = False) -> None:
    s = scale
    y = GROUND_Y + 10
    d.ellipse([x - 12 * s, y - 120 * s, x + 12 * s, y - 96 * s], fill=(120, 80, 60))
    body = [(x, y - 96 * s), (x - 26 * s, y - 10 * s), (x + 26 * s, y - 10 * s)] if dress else None
    if body:
        d.polygon(body, fill=color)
    else:
        d.rectangle([x - 14 * s, y - 96 * s, x + 14 * s, y - 45 * s], fill=color)
        d.line([(x - 8 * s, y - 45 * s), (x - 12 * s, y)], fill=(40, 40, 40), width=int(5 * s))
        d.line([(x + 8 * s, y - 45 * s), (x + 12 * s, y)], fill=(40, 40, 40), width=int(5 * s))
    d.line([(x - 14 * s, y - 88 * s), (x - 30 * s, y - 55 * s)], fill=color, width=int(6 * s))
    d.line([(x + 14 * s, y - 88 * s), (x + 30 * s, y - 55 * s)], fill=color, width=int(6 * s))


def _people(d, rng, accents) -> None:
    for x in sorted(rng.sample(range(60, W - 60, 40), rng.randint(3, 5))):
        _figure(d, x, rng.choice(accents), scale=rng.uniform(0.8, 1.1), dress=rng.random() < 0.5)


def _couple(d, rng, accents) -> None:
    d.rectangle([150, 90, 362, 110], fill=(220, 160, 40))  # canopy
    for x in (160, 352):
        d.rectangle([x - 6, 110, x + 6, GROUND_Y + 10], fill=(200, 140, 40))
    for x in range(165, 350, 18):
        d.ellipse([x, 108, x + 10, 118], fill=(250, 120, 30))
    _figure(d, 225, (200, 20, 40), dress=True)
    _figure(d, 290, (240, 230, 200))


def _lamps(d, rng, accents) -> None:
    _people(d, rng, accents)
    for x in range(40, W - 30, 56):
        d.chord([x, GROUND_Y + 40, x + 36, GROUND_Y + 70], 0, 180, fill=(190, 90, 30))
        d.ellipse([x + 12, GROUND_Y + 28, x + 24, GROUND_Y + 50], fill=(255, 210, 60))


def _plate(d, rng, accents) -> None:
    d.rectangle([40, 200, W - 40, 330], fill=(150, 100, 60))  # table
    d.ellipse([140, 190, 372, 320], fill=rng.choice([(60, 150, 60), (235, 235, 225), (30, 30, 30)]))
    for _ in range(rng.randint(4, 7)):
        x, y, r = rng.randint(180, 320), rng.randint(215, 280), rng.randint(14, 26)
        d.ellipse([x - r, y - r, x + r, y + r], fill=rng.choice(accents + [(245, 240, 220)]))


def _rangoli(d, rng, accents) -> None:
    d.rectangle([140, 60, 372, GROUND_Y], fill=(230, 215, 180))  # house
    d.rectangle([236, 150, 276, GROUND_Y], fill=(120, 70, 40))
    for r, color in zip((70, 52, 34, 16), accents):
        d.ellipse([256 - r * 1.6, 300 - r / 2, 256 + r * 1.6, 300 + r / 2], outline=color, width=7)


def _street(d, rng, accents) -> None:
    for x in range(0, W, 128):
        top = rng.randint(50, 130)
        d.rectangle([x + 4, top, x + 120, GROUND_Y], fill=rng.choice(accents))
        for wy in range(top + 15, GROUND_Y - 20, 35):
            d.rectangle([x + 20, wy, x + 45, wy + 18], fill=(250, 240, 200))
            d.rectangle([x + 75, wy, x + 100, wy + 18], fill=(250, 240, 200))
    x = rng.randint(80, 300)  # a small three-wheeler
    d.rounded_rectangle([x, 230, x + 120, 310], 25, fill=(240, 200, 40), outline=(30, 90, 40), width=6)
    for wx in (x + 20, x + 100):
        d.ellipse([wx - 16, 296, wx + 16, 328], fill=(30, 30, 30))


def _shrine(d, rng, accents) -> None:
    red = (200, 40, 30)
    d.rectangle([130, 70, 382, 90], fill=red)
    d.rectangle([150, 115, 362, 128], fill=red)
    for x in (175, 337):
        d.rectangle([x - 9, 80, x + 9, GROUND_Y + 10], fill=red)
    _figure(d, 256, rng.choice(accents), dress=True, scale=0.9)


def _blossoms(d, rng, accents) -> None:
    for tx in (110, 400):
        d.rectangle([tx - 10, 130, tx + 10, GROUND_Y], fill=(110, 70, 50))
        for _ in range(40):
            x, y, r = tx + rng.randint(-80, 80), rng.randint(50, 160), rng.randint(8, 16)
            d.ellipse([x - r, y - r, x + r, y + r], fill=rng.choice([(250, 190, 210), (245, 160, 190)]))
    d.rectangle([170, 270, 350, 320], fill=(60, 100, 190))  # picnic sheet
    _figure(d, 210, rng.choice(accents), scale=0.7)
    _figure(d, 310, rng.choice(accents), scale=0.7, dress=True)


def _bicycle(d, rng, accents) -> None:
    for row, y in enumerate(range(40, GROUND_Y, 24)):  # brick wall
        for x in range(-30 * (row % 2), W, 60):
            d.rectangle([x + 2, y + 2, x + 58, y + 22], fill=(170, 80, 60))
    red = (220, 20, 30)
    for cx in (170, 340):
        d.ellipse([cx - 60, 210, cx + 60, 330], outline=(30, 30, 30), width=8)
    d.line([(170, 270), (240, 200), (340, 270), (255, 270), (170, 270)], fill=red, width=10)
    d.line([(240, 200), (300, 200), (340, 270)], fill=red, width=10)
    d.line([(300, 200), (310, 175)], fill=red, width=8)


def _car(d, rng, accents) -> None:
    d.rectangle([0, GROUND_Y, W, H], fill=(90, 90, 95))
    yellow = (245, 200, 30)
    d.rounded_rectangle([100, 200, 412, 290], 20, fill=yellow)
    d.polygon([(170, 200), (210, 140), (330, 140), (370, 200)], fill=yellow)
    d.polygon([(190, 198), (218, 152), (322, 152), (350, 198)], fill=(180, 220, 240))
    for cx in (170, 345):
        d.ellipse([cx - 34, 258, cx + 34, 326], fill=(30, 30, 30))


MOTIFS = {
    drawer.__name__.lstrip("_"): drawer
    for drawer in (_people, _couple, _lamps, _plate, _rangoli, _street, _shrine, _blossoms, _bicycle, _car)
}


def demo_image(*, motif: str, banner: str, model: str = "", seed: str, labelled: bool = True) -> Image.Image:
    """A 512x384 picture: a simple scene for the motif, a few key words on a banner, and the model
    in a corner when ``labelled`` (never on a comparison's images: those are judged blind)."""
    rng = random.Random(seed)
    sky, ground, accents = PALETTES.get(model) or _palette(model)
    image = Image.new("RGB", SIZE, sky)
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, GROUND_Y, W, H], fill=ground)
    MOTIFS.get(motif, _people)(draw, rng, accents)
    draw.rectangle([0, H - 52, W, H], fill=(255, 255, 255))
    draw.text((W // 2, H - 26), banner, font=ImageFont.load_default(size=26), fill=(25, 25, 25), anchor="mm")
    if model and labelled:
        draw.text((10, 8), model, font=ImageFont.load_default(size=16), fill=(40, 40, 40))
    return image


def _palette(model: str):
    """A palette of its own for a model the demo does not name (model-a's when there is none)."""
    if not model:
        return PALETTES["model-a"]
    rng = random.Random(f"palette:{model}")
    sky = tuple(rng.randint(140, 250) for _ in range(3))
    ground = tuple(rng.randint(80, 190) for _ in range(3))
    return sky, ground, [tuple(rng.randint(20, 250) for _ in range(3)) for _ in range(4)]


def images_generate(*, rows_file: Path, folder: Path) -> int:
    """Draw every image a row names whose file is missing (its ``image``, and a comparison's
    ``image_1`` … with ``model_1`` …); returns how many were drawn.

    A row says what to draw in its (metadata) columns ``motif`` and ``banner``.
    """
    made = 0
    for _, row in read_rows(rows_file, required=()):
        if not isinstance(row, dict):
            continue
        if row.get("image"):
            made += _draw(row, folder / str(row["image"]), str(row.get("model") or ""), str(row["id"]), True)
        for n in range(1, 9):
            if row.get(f"image_{n}"):
                made += _draw(row, folder / str(row[f"image_{n}"]), str(row.get(f"model_{n}") or ""),
                              f"{row['id']}:{n}", False)
    return made


def _draw(row: dict, path: Path, model: str, seed: str, labelled: bool) -> bool:
    if path.exists():
        return False
    banner = str(row.get("banner") or row.get("prompt") or row["id"])
    image = demo_image(motif=str(row.get("motif", "")), banner=banner, model=model, seed=seed, labelled=labelled)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    image.save(partial, format="PNG")
    partial.replace(path)
    return True
