"""The small CAIRE-like study the gold, COCO and Hugging Face exports are checked against."""

import pytest

from annotation.models import Review
from tests import factories as f
from tests.annotations import annotate, annotators, inline_study, submitted

CAIRE = {
    "title": "Relevance",
    "reports": [{"kind": "human_scores", "value": "relevance"}],
    "fields": [
        {"key": "relevance", "type": "scale", "level": "ordinal", "label": "How relevant?",
         "choices": [{"value": v, "label": str(v)} for v in range(1, 6)]},
        {"key": "tags", "type": "multi", "label": "What do you see?", "required": False,
         "choices": [{"value": "food", "label": "Food"}, {"value": "dress", "label": "Dress"}]},
    ],
}


@pytest.fixture
def caire(owner):
    study = inline_study(owner, CAIRE, name="CAIRE small")
    india, japan = f.make_pool(study, "IN", "India"), f.make_pool(study, "JP", "Japan")
    items = f.make_items(study, "IN", 2)
    a, b, c = annotators(india, 3)
    (d,) = annotators(japan, 1)
    answers = {  # item 0 in India: 4, 5 and a flagged 1; item 1 in India: 2 and 2; item 0 in Japan: 3
        (a, 0): ("4", ["food"]), (b, 0): ("5", ["food", "dress"]), (c, 0): ("1", []),
        (a, 1): ("2", []), (b, 1): ("2", ["dress"]), (d, 0): ("3", ["food"]),
    }
    made = {}
    for (who, i), (score, tags) in answers.items():
        form = {"relevance": score, **({"tags": tags} if tags else {})}
        made[who, i] = annotate(who, items[i], submitted(items[i], form))
    Review.objects.create(annotation=made[c, 0], reviewer=owner, outcome=Review.Outcome.FLAGGED)
    return study, items, (a, b, c, d)
