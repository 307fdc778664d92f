"""A protocol's annotator form for a sample item, for a researcher choosing a preset or editing a
protocol: the real field templates bound to a real item of the study or to made-up item texts,
documents and candidates. Nothing is stored."""

from studies.models import Item
from studies.protocol import Bound, CandidateRef, DocumentRef, ItemContext, Protocol, bind

SAMPLE_ITEM = ItemContext(
    texts={
        "prompt": "A family sharing a meal at a festival",
        "caption": "People light oil lamps in front of their house for Diwali, the festival of lights.",
        "question": "What is the dish on the plate called?",
        "background": "A dish served at weddings and festivals.",
        "reference": "Biryani",
        "answer": "Rice",
    },
    image=(640, 480),
    documents=(DocumentRef(1, "Diwali"), DocumentRef(2, "Oil lamp")),
    candidates=(
        CandidateRef("a", "Oil lamps lit for Diwali in front of a house."),
        CandidateRef("b", "A house at night."),
        CandidateRef("c", "Candles at a birthday party."),
    ),
)


def sample_fields(spec: Protocol, item: ItemContext = SAMPLE_ITEM) -> list[Bound]:
    """The protocol's fields, blank, as the item page binds them for the sample item."""
    return bind(spec, {}, item, None)


def item_preview_context(item: Item) -> ItemContext:
    """A real item as a preview shows it: its texts, image, documents (prefetched by the caller)
    and candidates in their stored order (an annotator sees them in an order of their own)."""
    return ItemContext(
        texts=item.text_map(),
        image=(item.width, item.height) if item.image and item.width else None,
        documents=[DocumentRef(d.pk, d.title) for d in item.documents.all()],
        candidates=[CandidateRef(str(c.get("id")), str(c.get("text", ""))) for c in item.candidates or []],
    )
