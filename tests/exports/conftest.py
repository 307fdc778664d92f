"""The small studies the gold, COCO and Hugging Face exports are checked against: CAIRE-like ratings,
and GlobalRG photos two annotators uploaded under the same file name."""

import hashlib
import json

import pytest
from django.core.files.base import ContentFile

from annotation.models import Review, Upload
from studies.protocol import UploadRef
from tests import factories as f
from tests.annotations import annotate, annotators, inline_study, submitted
from tests.specs import GLOBALRG

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


@pytest.fixture
def photos(owner):
    """A GlobalRG study whose two annotators uploaded different photos under the same file name
    (stored as PNG): (study, item, [(sha256, bytes), …])."""
    study = inline_study(owner, GLOBALRG, name="GlobalRG")
    pool = f.make_pool(study, "KE", "Kenya")
    item = f.make_items(study, "KE", 1, prompt="ugali")[0]
    made = []
    for n, who in enumerate(annotators(pool, 2)):
        data = f.png_bytes(color=(10 * n, 200, 30), size=(96, 72))
        sha = hashlib.sha256(data).hexdigest()
        ref = UploadRef(f"tok-{n}", 96, 72, sha, "photo.jpg")
        form = {"photo": ref.token, "box": json.dumps([[5, 5, 20, 20]]), "prevalent": "yes"}
        annotation = annotate(who, item, submitted(item, form, uploads=[ref]))
        upload = Upload(study=study, assignment=annotation.assignment, suffix=".png", original_name="photo.jpg",
                        width=96, height=72, sha256=sha)
        upload.file.save(f"{sha}.png", ContentFile(data))
        made.append((sha, data))
    return study, item, made


from tests.exports.fake_hub import fake_hub  # noqa: E402,F401 - the fake Hugging Face Hub for the push tests
