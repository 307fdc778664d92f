"""Every preset through the server engine: valid submissions, and each rule refused with its message."""

import re

import pytest

from studies.models import Study
from studies.protocol import SKIP, CandidateRef, DocumentRef, ItemContext, UploadRef, parse_spec, validate
from studies.protocol.spec import ITEM_TEXTS, SHOWABLE
from studies.services import preset_get, presets_list
from tests.factories import PRESET_NAMES as NAMES
from tests.factories import valid_answers


def spec_of(name):
    return parse_spec(preset_get(name).protocol)


def form(**fields) -> dict[str, list[str]]:
    """A submission as an HTML form posts it: every value a list of strings."""
    return {name: value if isinstance(value, list) else [value] for name, value in fields.items()}


# --- every preset --------------------------------------------------------------------------------


def test_there_is_a_preset_for_every_protocol():
    assert sorted(p.name for p in presets_list()) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_each_preset_parses_and_describes_its_study(name):
    preset = preset_get(name)
    spec = parse_spec(preset.protocol)
    # cites its paper, never a file this repository does not have; says "practice test", as the pages do
    assert re.search(r"^\w+ \((?:[A-Z][a-z]+ et al\., )?(?:EMNLP )?20\d\d\b", preset.description), preset.description
    assert "PROTOCOLS.md" not in preset.description and "mock test" not in preset.description
    assert preset.study["routing"] in Study.Routing.values
    assert preset.study["instructions_md"].strip() and preset.study["consent_md"].strip()
    assert set(preset.study) <= {f.name for f in Study._meta.concrete_fields}
    assert set(spec.display.show) <= set(SHOWABLE)
    assert set(spec.display.collapsed) <= set(spec.display.show)
    assert all(f.label and f.help for f in spec.fields)
    for f in spec.fields:
        if f.type == "highlight":
            assert f.over in ITEM_TEXTS


@pytest.mark.parametrize(
    "name, routing",
    [("caire-relevance", "all_pools"), *((n, "country") for n in NAMES if n != "caire-relevance")],
)
def test_each_preset_routes_its_items(name, routing):
    assert preset_get(name).study["routing"] == routing


def test_presets_are_fresh_copies():
    preset_get("caire-relevance").protocol["fields"].clear()
    assert preset_get("caire-relevance").protocol["fields"]


# --- CAIRE ---------------------------------------------------------------------------------------

CAIRE_IMAGE = ItemContext(image=(512, 384))


def test_caire_offers_the_five_labelled_anchors():
    field = spec_of("caire-relevance").field("relevance")
    assert field.level == "ordinal"
    assert [(c.value, c.label) for c in field.choices] == [
        (1, "Not relevant"), (2, "Minimally relevant"), (3, "Somewhat relevant"), (4, "Relevant"),
        (5, "Highly relevant"),
    ]
    assert all(c.description for c in field.choices)
    assert field.label == "How culturally relevant is this image to your own country?"


@pytest.mark.parametrize("value", ["1", "2", "3", "4", "5"])
def test_caire_accepts_every_point(value):
    result = validate(spec_of("caire-relevance"), form(relevance=value), CAIRE_IMAGE)
    assert result.ok and result.answers == {"relevance": int(value)}


@pytest.mark.parametrize("value", ["0", "6", "3.5", "relevant"])
def test_caire_refuses_a_point_off_the_scale(value):
    result = validate(spec_of("caire-relevance"), form(relevance=value), CAIRE_IMAGE)
    assert result.errors == {"relevance": "Choose one of the options."}
    assert result.answers == {}


def test_caire_shows_only_the_image():
    assert spec_of("caire-relevance").display.show == ("image",)


# --- CulturalFrames prompt filter ----------------------------------------------------------------

PROMPT = ItemContext(texts={"prompt": "A family sharing sweets at a Diwali gathering"})


@pytest.mark.parametrize("value", ["yes", "no"])
def test_the_prompt_filter_takes_yes_or_no(value):
    result = validate(spec_of("culturalframes-prompt-filter"), form(fits_culture=value), PROMPT)
    assert result.ok and result.answers == {"fits_culture": value}


def test_the_prompt_filter_refuses_anything_else():
    spec = spec_of("culturalframes-prompt-filter")
    assert validate(spec, form(fits_culture="maybe"), PROMPT).errors == {"fits_culture": "Choose one of the options."}
    assert validate(spec, {}, PROMPT).errors == {"fits_culture": "This question needs an answer."}


def test_the_prompt_filter_shows_the_prompt_without_an_image():
    spec = spec_of("culturalframes-prompt-filter")
    assert spec.display.noun == "Prompt" and spec.display.show == ("prompt",)
    assert spec.field("fits_culture").level == "nominal"
    assert preset_get("culturalframes-prompt-filter").study["items_per_session"] == 10


# --- CulturalFrames rating: a hidden field's value is never stored ------------------------------

RATING_PROMPT = ItemContext(texts={"prompt": "A family sharing a meal at a festival"})


def test_a_hidden_field_is_never_stored_even_when_posted():
    data = valid_answers(alignment="1", stereotype="no", stereotype_description="Posted, but the question was hidden.")
    result = validate(spec_of("culturalframes-rating"), data, RATING_PROMPT)
    assert result.ok
    assert set(result.answers) == {"alignment", "stereotype", "quality", "overall"}


def test_the_rating_preset_keeps_its_field_keys():
    assert [f.key for f in spec_of("culturalframes-rating").fields] == [
        "alignment", "error_types", "words", "explanation", "stereotype", "stereotype_description", "quality",
        "overall",
    ]


# --- RAVENEA document relevance ------------------------------------------------------------------

DOCUMENTS = [DocumentRef(id=100 + n, title=title) for n, title in enumerate(
    ["Sushi", "Japanese cuisine", "Rice", "Nigiri", "Tokyo", "Wasabi", "Soy sauce", "Bento", "Seaweed", "Tuna"]
)]
RAVENEA = ItemContext(
    texts={"caption": "Sushi, a traditional Japanese delicacy, on a wooden board."}, image=(640, 480),
    documents=DOCUMENTS,
)


def ravenea_answers(**overrides) -> dict[str, list[str]]:
    data = form(caption_correct="yes")
    for i, _ in enumerate(DOCUMENTS):
        data.update(form(**{
            f"documents.{i}.country": "cannot_determine" if i == 2 else "yes",
            f"documents.{i}.topic": "yes" if i < 4 else "no",
            f"documents.{i}.visual": "no",
        }))
    data.update(form(**overrides))
    return data


def test_ravenea_stores_the_three_answers_per_document_in_order():
    result = validate(spec_of("ravenea-doc-relevance"), ravenea_answers(), RAVENEA)
    assert result.ok, result.errors
    assert result.answers["caption_correct"] == "yes"
    documents = result.answers["documents"]
    assert [d["document"] for d in documents] == [d.id for d in DOCUMENTS]
    assert documents[0] == {"document": 100, "country": "yes", "topic": "yes", "visual": "no"}
    assert documents[2]["country"] == "cannot_determine"
    assert "missing_documents" not in result.answers  # optional, and none given


def test_ravenea_stores_missing_documents():
    data = ravenea_answers(**{
        "missing_documents.title": ["Kaiseki", "Omakase"],
        "missing_documents.url": ["https://en.wikipedia.org/wiki/Kaiseki", "https://en.wikipedia.org/wiki/Omakase"],
    })
    result = validate(spec_of("ravenea-doc-relevance"), data, RAVENEA)
    assert result.ok, result.errors
    assert result.answers["missing_documents"] == [
        {"title": "Kaiseki", "url": "https://en.wikipedia.org/wiki/Kaiseki"},
        {"title": "Omakase", "url": "https://en.wikipedia.org/wiki/Omakase"},
    ]


def test_ravenea_refuses_a_missing_answer_for_the_second_document():
    data = ravenea_answers()
    del data["documents.1.country"]
    result = validate(spec_of("ravenea-doc-relevance"), data, RAVENEA)
    assert result.errors == {"documents.1.country": "This question needs an answer."}
    assert result.answers == {}


def test_ravenea_refuses_an_answer_not_offered():
    data = ravenea_answers(**{"documents.3.topic": "cannot_determine"})
    result = validate(spec_of("ravenea-doc-relevance"), data, RAVENEA)
    assert result.errors == {"documents.3.topic": "Choose one of the options."}


def test_ravenea_requires_the_caption_check():
    data = ravenea_answers()
    del data["caption_correct"]
    assert validate(spec_of("ravenea-doc-relevance"), data, RAVENEA).errors == {
        "caption_correct": "This question needs an answer."
    }


def test_ravenea_refuses_a_missing_document_row_with_a_bad_url():
    data = ravenea_answers(
        **{"missing_documents.title": "Sushi", "missing_documents.url": "en.wikipedia.org/wiki/Sushi"}
    )
    result = validate(spec_of("ravenea-doc-relevance"), data, RAVENEA)
    assert result.errors == {
        "missing_documents": "Row 1: 'en.wikipedia.org/wiki/Sushi' is not a web address (it starts with https://)."
    }


def test_ravenea_refuses_a_missing_document_row_with_a_url_but_no_title():
    data = ravenea_answers(**{
        "missing_documents.title": ["Kaiseki", ""],
        "missing_documents.url": ["https://en.wikipedia.org/wiki/Kaiseki", "https://en.wikipedia.org/wiki/Omakase"],
    })
    result = validate(spec_of("ravenea-doc-relevance"), data, RAVENEA)
    assert result.errors == {"missing_documents": "Row 2: give the article's title."}


def test_ravenea_refuses_more_than_ten_missing_documents():
    data = ravenea_answers(**{
        "missing_documents.title": [f"Article {n}" for n in range(11)],
        "missing_documents.url": [f"https://en.wikipedia.org/wiki/A{n}" for n in range(11)],
    })
    assert validate(spec_of("ravenea-doc-relevance"), data, RAVENEA).errors == {
        "missing_documents": "Give at most 10 articles."
    }


def test_ravenea_sub_questions_are_nominal_with_cannot_be_determined_on_country_only():
    documents = spec_of("ravenea-doc-relevance").field("documents")
    assert [(f.key, f.level) for f in documents.fields] == [
        ("country", "nominal"), ("topic", "nominal"), ("visual", "nominal")
    ]
    assert [c.value for c in documents.fields[0].choices] == ["yes", "no", "cannot_determine"]
    assert documents.fields[0].choices[2].label == "Cannot be determined"
    _, topic, visual = documents.fields
    assert [c.value for c in topic.choices] == [c.value for c in visual.choices] == ["yes", "no"]


def test_ravenea_shows_image_caption_and_documents():
    assert spec_of("ravenea-doc-relevance").display.show == ("image", "caption", "documents")


# --- RAVENEA caption choice ----------------------------------------------------------------------

CAPTIONS = ItemContext(image=(640, 480), candidates=[  # in the order this annotator saw them
    CandidateRef("sys-c", "A table of dishes at a feast."),
    CandidateRef("sys-a", "A traditional Chinese New Year's Eve feast with dumplings and fish."),
    CandidateRef("sys-b", "A large reunion dinner with local specialties."),
])


def test_caption_choice_stores_the_pick_with_the_order_shown():
    result = validate(spec_of("ravenea-caption-choice"), form(best_caption="sys-a"), CAPTIONS)
    assert result.ok
    assert result.answers == {"best_caption": {"choice": "sys-a", "order": ["sys-c", "sys-a", "sys-b"]}}


@pytest.mark.parametrize("posted", [["sys-d"], ["sys-a", "sys-b"], []])
def test_caption_choice_refuses_a_candidate_not_shown_or_several(posted):
    result = validate(spec_of("ravenea-caption-choice"), {"best_caption": posted}, CAPTIONS)
    assert "best_caption" in result.errors and result.answers == {}


def test_caption_choice_refuses_a_candidate_not_shown_with_its_message():
    result = validate(spec_of("ravenea-caption-choice"), form(best_caption="sys-d"), CAPTIONS)
    assert result.errors == {"best_caption": "Choose one of the options."}


def test_caption_choice_is_nominal_and_shows_the_image():
    spec = spec_of("ravenea-caption-choice")
    assert spec.field("best_caption").level == "nominal"
    assert spec.display.show == ("image",)


# --- GlobalRG grounding --------------------------------------------------------------------------

UPLOAD = UploadRef(token="upl-1", width=1000, height=800, sha256="ab" * 32, name="market.jpg")
CONCEPT = ItemContext(texts={"prompt": "Bayong"}, uploads={UPLOAD.token: UPLOAD})


def grounding(**overrides) -> dict[str, list[str]]:
    return form(**{"photo": "upl-1", "box": "[[100, 200, 200, 150]]", "prevalent": "yes", **overrides})


def test_grounding_stores_the_upload_and_the_box_in_pixels_and_normalised():
    result = validate(spec_of("globalrg-grounding"), grounding(), CONCEPT)
    assert result.ok, result.errors
    assert result.answers["photo"] == {
        "upload": "upl-1", "width": 1000, "height": 800, "sha256": "ab" * 32, "name": "market.jpg"
    }
    assert result.answers["box"] == [{
        "x": 100, "y": 200, "w": 200, "h": 150, "nx": 0.1, "ny": 0.25, "nw": 0.2, "nh": 0.1875,
        "area_ratio": 0.0375,
    }]
    assert result.answers["prevalent"] == "yes"


def test_grounding_refuses_a_box_covering_30_percent_showing_the_ratio():
    result = validate(spec_of("globalrg-grounding"), grounding(box="[[0, 0, 600, 400]]"), CONCEPT)  # exactly 30%
    assert result.errors == {"box": (
        "The box covers 30% of the image; it must cover less than 30%. Draw it tighter around the concept."
    )}
    bigger = validate(spec_of("globalrg-grounding"), grounding(box="[[0, 0, 800, 600]]"), CONCEPT)
    assert bigger.errors["box"].startswith("The box covers 60% of the image")


def test_grounding_accepts_a_box_just_under_30_percent():
    assert validate(spec_of("globalrg-grounding"), grounding(box="[[0, 0, 599, 400]]"), CONCEPT).ok


@pytest.mark.parametrize(
    "box", ["[[900, 100, 200, 100]]", "[[-5, 10, 50, 50]]", "[[10, 700, 50, 200]]", "[[10, 10, 0, 50]]"]
)
def test_grounding_refuses_a_box_outside_the_image(box):
    result = validate(spec_of("globalrg-grounding"), grounding(box=box), CONCEPT)
    assert result.errors == {"box": "Each box must lie inside the image."}


def test_grounding_refuses_two_boxes():
    result = validate(spec_of("globalrg-grounding"), grounding(box="[[10, 10, 50, 50], [100, 100, 50, 50]]"), CONCEPT)
    assert result.errors == {"box": "Draw at most 1 box (you drew 2)."}


def test_grounding_requires_a_box():
    assert validate(spec_of("globalrg-grounding"), grounding(box="[]"), CONCEPT).errors == {
        "box": "Draw a box on the image."
    }


def test_grounding_refuses_a_box_that_cannot_be_read():
    assert validate(spec_of("globalrg-grounding"), grounding(box="[[1, 2, 3]]"), CONCEPT).errors == {
        "box": "Draw the box again: it could not be read."
    }


def test_grounding_requires_the_upload():
    data = grounding()
    del data["photo"], data["box"]
    assert validate(spec_of("globalrg-grounding"), data, CONCEPT).errors == {
        "photo": "Upload an image.", "box": "Draw a box on the image."
    }


def test_grounding_refuses_a_box_drawn_before_the_upload():
    data = grounding()
    del data["photo"]
    result = validate(spec_of("globalrg-grounding"), data, ItemContext(texts={"prompt": "Bayong"}))
    assert result.errors == {"photo": "Upload an image.", "box": "Upload the image first, then draw the box on it."}


def test_grounding_refuses_an_upload_of_someone_else_or_not_found():
    result = validate(spec_of("globalrg-grounding"), grounding(photo="upl-unknown"), CONCEPT)
    assert result.errors["photo"] == "Upload the image again: the upload was not found."


def test_grounding_requires_the_prevalence_answer():
    assert validate(spec_of("globalrg-grounding"), grounding(prevalent=[]), CONCEPT).errors == {
        "prevalent": "This question needs an answer."
    }


def test_grounding_shows_the_concept_name_and_asks_prevalence():
    spec = spec_of("globalrg-grounding")
    assert spec.display.noun == "Concept" and spec.display.show == ("prompt",)
    box = spec.field("box")
    assert (box.over, box.min, box.max, box.max_area_ratio) == ("photo", 1, 1, 0.3)
    assert spec.field("prevalent").label == "Is this concept prevalent in your culture?"
    assert spec.field("prevalent").level == "nominal"


# --- CulturalVQA question writing ----------------------------------------------------------------

VQA_IMAGE = ItemContext(
    image=(640, 480), texts={"background": "Naan is a leavened flatbread baked in a tandoor."},
)
REASONS = ["The image is not culturally relevant", "I am not familiar with what it shows"]


def test_question_writing_stores_the_question():
    data = form(question="  What is this bread called locally?  ")
    result = validate(spec_of("culturalvqa-question"), data, VQA_IMAGE)
    assert result.ok and result.answers == {"question": "What is this bread called locally?"}


@pytest.mark.parametrize("reason", REASONS)
def test_question_writing_skip_stores_only_the_reason(reason):
    data = form(question="What is this bread called locally?", **{SKIP: reason})
    result = validate(spec_of("culturalvqa-question"), data, VQA_IMAGE)
    assert result.ok and result.skipped
    assert result.answers == {"_skip": reason}


def test_question_writing_refuses_an_unknown_skip_reason():
    result = validate(spec_of("culturalvqa-question"), form(**{SKIP: "I am bored"}), VQA_IMAGE)
    assert result.errors == {"_skip": "Choose one of the reasons to skip."}
    assert result.answers == {}


def test_question_writing_refuses_fewer_than_three_words():
    result = validate(spec_of("culturalvqa-question"), form(question="Bread name?"), VQA_IMAGE)
    assert result.errors == {"question": "Write at least 3 words."}


def test_question_writing_refuses_more_than_300_characters():
    result = validate(spec_of("culturalvqa-question"), form(question="What " * 60 + "is it?"), VQA_IMAGE)
    assert result.errors == {"question": "Write at most 300 characters (you wrote 306)."}


def test_question_writing_requires_a_question_or_a_skip():
    assert validate(spec_of("culturalvqa-question"), {}, VQA_IMAGE).errors == {
        "question": "Write your question, or skip the image with a reason."
    }


def test_question_writing_shows_background_collapsed_and_offers_the_two_reasons():
    spec = spec_of("culturalvqa-question")
    assert spec.display.show == ("image", "background") and spec.display.collapsed == ("background",)
    assert list(spec.skip.reasons) == REASONS


# --- CulturalVQA answer writing ------------------------------------------------------------------

QUESTION = ItemContext(image=(640, 480), texts={"question": "What is this bread called locally?"})


@pytest.mark.parametrize("answer", ["Naan", "Butter naan", "Tandoori butter naan"])
def test_answer_writing_accepts_one_to_three_words(answer):
    result = validate(spec_of("culturalvqa-answer"), form(answer=answer), QUESTION)
    assert result.ok and result.answers == {"answer": answer}


def test_answer_writing_refuses_four_words():
    result = validate(spec_of("culturalvqa-answer"), form(answer="It is Indian bread"), QUESTION)
    assert result.errors == {"answer": "Write at most 3 words (you wrote 4)."}


def test_answer_writing_requires_an_answer():
    result = validate(spec_of("culturalvqa-answer"), form(answer="   "), QUESTION)
    assert result.errors == {"answer": "Write an answer."}


def test_answer_writing_asks_for_local_terms_and_shows_the_question():
    spec = spec_of("culturalvqa-answer")
    assert "using local terms, e.g. 'Naan', not 'Indian bread'" in spec.field("answer").help
    assert spec.display.show == ("image", "question")


# --- CulturalVQA judgment ------------------------------------------------------------------------

JUDGED = ItemContext(image=(640, 480), texts={
    "question": "What is this bread called locally?", "reference": "Naan; Butter naan", "answer": "Indian bread",
})


def test_judgment_has_the_five_labels_of_the_paper():
    field = spec_of("culturalvqa-judgment").field("judgment")
    assert field.level == "ordinal"
    assert [(c.value, c.label) for c in field.choices] == [
        (1, "Completely correct"),
        (2, "Correct but not culturally specific"),
        (3, "Correct but not precise"),
        (4, "Correct but neither culturally specific nor precise"),
        (5, "Completely incorrect"),
    ]


@pytest.mark.parametrize("value", ["1", "2", "3", "4", "5"])
def test_judgment_accepts_every_point(value):
    assert validate(spec_of("culturalvqa-judgment"), form(judgment=value), JUDGED).answers == {"judgment": int(value)}


@pytest.mark.parametrize("value", ["0", "6"])
def test_judgment_refuses_a_point_off_the_scale(value):
    assert validate(spec_of("culturalvqa-judgment"), form(judgment=value), JUDGED).errors == {
        "judgment": "Choose one of the options."
    }


def test_judgment_shows_the_question_the_references_and_the_model_answer():
    assert spec_of("culturalvqa-judgment").display.show == ("image", "question", "reference", "answer")
