"""A protocol's annotator form for a sample item, for a researcher choosing a preset: the real
field templates bound to made-up item texts, documents and candidates. Nothing is stored."""

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


def sample_fields(spec: Protocol) -> list[Bound]:
    """The protocol's fields, blank, as the item page binds them for the sample item."""
    return bind(spec, {}, SAMPLE_ITEM, None)
