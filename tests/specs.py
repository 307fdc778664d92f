"""Protocols written inline for the export and analysis tests, shaped like the seed presets."""

YES_NO = [{"value": "yes", "label": "Yes"}, {"value": "no", "label": "No"}]

RAVENEA_DOCS = {
    "title": "RAVENEA document relevance",
    "fields": [
        {"key": "caption_ok", "type": "choice", "level": "nominal", "label": "Does the caption describe the picture?",
         "choices": YES_NO},
        {
            "key": "docs",
            "type": "per_document",
            "label": "About each document",
            "fields": [
                {"key": "country", "type": "choice", "level": "nominal", "label": "Same country?",
                 "choices": [*YES_NO, {"value": "cannot_determine", "label": "Cannot be determined"}]},
                {"key": "topic", "type": "choice", "level": "nominal", "label": "Same topic?", "choices": YES_NO},
                {"key": "visual", "type": "choice", "level": "nominal", "label": "Shown or mentioned?",
                 "choices": YES_NO},
                {"key": "note", "type": "text", "required": False, "label": "Note"},
            ],
        },
        {"key": "missing", "type": "url_list", "required": False, "label": "Missing documents"},
    ],
    "display": {"noun": "Image", "show": ["image", "caption", "documents"]},
    "skip": {"reasons": ["The image does not load"]},
}  # fmt: skip

GLOBALRG = {
    "title": "GlobalRG grounding",
    "fields": [
        {"key": "photo", "type": "upload", "label": "Upload an image of the concept"},
        {"key": "box", "type": "bbox", "over": "photo", "min": 1, "max": 1, "max_area_ratio": 0.3,
         "label": "Draw a box"},
        {"key": "prevalent", "type": "choice", "level": "nominal", "label": "Prevalent in your culture?",
         "choices": YES_NO},
    ],
    "skip": {"label": "Skip this concept", "reasons": ["I do not know this concept", "No image can be found"]},
}

CAPTION_CHOICE = {
    "title": "RAVENEA caption choice",
    "fields": [{"key": "best", "type": "pick_one", "level": "nominal", "label": "The most accurate caption"}],
    "display": {"noun": "Image", "show": ["image", "candidates"]},
    "skip": {"reasons": ["The image does not load"]},
}

CANDIDATES = [
    {"id": "sys-a", "text": "A bowl of pho."}, {"id": "sys-b", "text": "Soup."}, {"id": "sys-c", "text": "Food."}
]


def ravenea_form(per_doc: list[tuple[str, str, str]], *, caption_ok="yes", missing=()) -> dict:
    """A RAVENEA submission: (country, topic, visual) answers per document, in document order."""
    form = {"caption_ok": caption_ok}
    for i, (country, topic, visual) in enumerate(per_doc):
        form.update({f"docs.{i}.country": country, f"docs.{i}.topic": topic, f"docs.{i}.visual": visual})
    if missing:
        form["missing.title"] = [t for t, _ in missing]
        form["missing.url"] = [u for _, u in missing]
    return form
