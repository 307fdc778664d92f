"""The item page shows what the protocol's display names, and a field template for every type."""

import json
import re

import pytest
from django.urls import reverse

from annotation.context import candidate_order
from annotation.links import item_image_link
from annotation.models import Annotation
from tests import factories as f
from tests.factories import add_items
from tests.helpers import as_annotator, on_items
from tests.helpers import item_submit as submit


@pytest.mark.django_db
def test_a_prompt_study_shows_the_prompt_in_one_column_and_no_image(client):
    _, a, page = on_items(client, "culturalframes-prompt-filter", prompt="Neighbours sharing sweets at Eid")
    assert "Prompt 1 of 2" in page and "<title>Prompt 1 of 2" in page
    assert 'class="item-grid single"' in page
    assert item_image_link(a) not in page and "zoom-dialog" not in page
    assert '<p class="part-label muted">Prompt</p>' in page and "<q>Neighbours sharing sweets at Eid</q>" in page
    assert 'data-field="fits_culture"' in page


@pytest.mark.django_db
def test_an_image_study_shows_only_the_image_and_not_the_prompt(client):
    _, a, page = on_items(client, "caire-relevance", prompt="A realistic photo of breakfast in India")
    assert "Image 1 of 2" in page and 'class="item-grid"' in page
    assert item_image_link(a) in page
    assert "breakfast in India" not in page


@pytest.mark.django_db
def test_the_concept_of_a_grounding_item_is_labelled_concept(client):
    _, a, page = on_items(client, "globalrg-grounding", prompt="Kathakali")
    assert "Concept 1 of 2" in page and '<p class="part-label muted">Concept</p>' in page
    assert reverse("annotation:item-upload", args=[a.pk]) in page
    assert 'data-type="upload"' in page and 'data-type="bbox"' in page and 'data-over="photo"' in page
    assert 'data-max-ratio="0.3"' in page and 'name="box" value=""' in page
    assert item_image_link(a) not in page  # the box is drawn on the upload


@pytest.mark.django_db
def test_a_collapsed_part_is_behind_a_click_to_expand_and_a_skip_is_offered(client):
    _, _, page = on_items(client, "culturalvqa-question", texts={"background": "Onam is a harvest festival of Kerala."})
    assert ('<details class="item-part collapsed part-background">'
            '<summary>Background <span class="muted">(click to expand)</span></summary>') in page
    assert "<p>Onam is a harvest festival of Kerala.</p>" in page
    assert "data-skip-open" in page and ">Skip this image</button>" in page
    assert 'value="I am not familiar with what it shows" required>' in page
    assert 'data-min-words="3"' in page


@pytest.mark.django_db
def test_an_empty_text_part_is_left_out(client):
    _, _, page = on_items(client, "culturalvqa-question")
    assert "part-background" not in page


@pytest.mark.django_db
def test_a_judgment_shows_the_question_the_reference_and_the_answer(client):
    texts = {"question": "What is this dish called?", "reference": "Appam", "answer": "Rice pancake"}
    _, _, page = on_items(client, "culturalvqa-judgment", texts=texts)
    shown = (("Question", "What is this dish called?"), ("Reference answers", "Appam"), ("Answer", "Rice pancake"))
    for label, text in shown:
        assert f'<p class="part-label muted">{label}</p>' in page and f"<p>{text}</p>" in page
    assert "Answer 1 of 2" in page


DOCUMENTS = [
    ("Onam", "https://en.wikipedia.org/wiki/Onam", "Onam is an annual harvest festival."),
    ("Pookalam", "https://en.wikipedia.org/wiki/Pookalam", ""),
]


@pytest.mark.django_db
def test_each_document_is_shown_with_its_own_questions(client):
    _, a, page = on_items(client, "ravenea-doc-relevance", caption="A flower carpet for Onam.", documents=DOCUMENTS)
    assert '<p class="part-label muted">Caption</p>' in page
    assert page.count('class="document-group"') == 2
    assert '<a href="https://en.wikipedia.org/wiki/Onam" target="_blank" rel="noopener">Onam</a>' in page
    assert "<p>Onam is an annual harvest festival.</p>" in page
    assert page.count('class="document-text"') == 1  # the second has no text
    for i in (0, 1):
        for sub in ("country", "topic", "visual"):
            assert f'name="documents.{i}.{sub}"' in page
    assert 'name="missing_documents.title"' in page and "Add another article" in page
    assert "part-documents" not in page  # not listed a second time above the questions


@pytest.mark.django_db
def test_the_missing_articles_question_counts_no_ten_when_an_item_has_two(client):
    _, _, page = on_items(client, "ravenea-doc-relevance", documents=DOCUMENTS)
    assert "Relevant Wikipedia articles missing from the list (optional)" in page
    assert "the ten" not in page


@pytest.mark.django_db
def test_a_refused_document_answer_is_marked_on_its_document(client):
    _, a, _ = on_items(client, "ravenea-doc-relevance", documents=DOCUMENTS)
    data = {"caption_correct": "yes", "documents.0.country": "yes", "documents.0.topic": "no",
            "documents.0.visual": "no", "documents.1.country": "maybe", "documents.1.topic": "no",
            "documents.1.visual": "no", "missing_documents.title": ["Sadhya"], "missing_documents.url": ["sadhya"]}
    response = submit(client, a, data)
    page = response.content.decode()
    assert response.status_code == 422
    assert '<p class="error" id="err-documents.1.country">Choose one of the options.</p>' in page
    assert 'aria-describedby="err-documents.1.country"' in page
    assert 'id="err-missing_documents">Row 1:' in page
    assert 'name="missing_documents.title" value="Sadhya"' in page  # the rows are kept
    assert 'name="documents.0.topic" value="no" data-v="&quot;no&quot;" checked' in page
    assert not Annotation.objects.exists()


@pytest.mark.django_db
def test_candidates_are_shown_in_the_assignments_order(client):
    candidates = [{"id": f"sys-{c}", "text": f"Caption {c}"} for c in "abc"]
    _, a, page = on_items(client, "ravenea-caption-choice", candidates=candidates)
    shown = [c["id"] for c in candidate_order(a)]
    positions = [page.index(f'value="{cid}"') for cid in shown]
    assert positions == sorted(positions)
    assert "keys 1–3" in page and "Caption a" in page
    submit(client, a, {"best_caption": shown[2]})
    assert Annotation.objects.get().answers == {"best_caption": {"choice": shown[2], "order": shown}}


@pytest.mark.django_db
def test_a_skip_stores_only_the_reason(client):
    _, a, _ = on_items(client, "culturalvqa-question")
    response = submit(client, a, {"_skip": "The image is not culturally relevant", "question": "Half a question"})
    assert response.status_code == 200 and "Image 2 of 2" in response.content.decode()
    assert Annotation.objects.get().answers == {"_skip": "The image is not culturally relevant"}


@pytest.mark.django_db
def test_a_skip_with_an_unknown_reason_is_refused_and_keeps_the_draft(client):
    _, a, _ = on_items(client, "culturalvqa-question")
    client.post(reverse("annotation:item-draft", args=[a.pk]), {"question": "What is the name of this dance?"})
    response = submit(client, a, {"_skip": "I am bored"})
    page = response.content.decode()
    assert response.status_code == 422
    assert 'id="skip-dialog" class="skip-dialog" aria-labelledby="skip-heading" data-open' in page
    assert '<p class="error" id="err-skip">Choose one of the reasons to skip.</p>' in page
    assert "What is the name of this dance?</textarea>" in page
    question = page[page.index('data-field="question"'):]
    assert not question[:question.index(">")].endswith(" hidden")
    assert not Annotation.objects.exists()


@pytest.mark.django_db
def test_a_one_to_three_word_answer_is_a_one_line_input_where_enter_submits(client):
    _, a, page = on_items(client, "culturalvqa-answer", texts={"question": "What is this?"})
    assert ('<input type="text" name="answer" aria-label="Your answer to the question" value="" maxlength="100" '
            'data-min-words="1" data-max-words="3" autocomplete="off" enterkeyhint="send">') in page
    assert "<textarea" not in page
    assert "1 to 3 words." in page and "<kbd>Enter</kbd> submits your answer." in page
    client.post(reverse("annotation:item-draft", args=[a.pk]), {"answer": 'Dosa "plain"'})
    assert 'value="Dosa &quot;plain&quot;"' in client.get(reverse("annotation:items")).content.decode()


@pytest.mark.django_db
def test_a_longer_text_stays_a_box_where_enter_makes_a_new_line(client):
    _, _, page = on_items(client, "culturalvqa-question")
    assert '<textarea name="question"' in page and 'rows="3"' in page
    assert "submits your answer" not in page


@pytest.mark.django_db
def test_a_drafted_box_and_upload_are_shown_again(client):
    from annotation.services import upload_receive

    _, a, _ = on_items(client, "globalrg-grounding", prompt="Kathakali")
    upload = upload_receive(assignment=a, name="k.png", data=f.png_bytes(size=(100, 80)))
    box = json.dumps([[10, 10, 20, 20]])
    client.post(reverse("annotation:item-draft", args=[a.pk]), {"photo": str(upload.token), "box": box})
    page = client.get(reverse("annotation:items")).content.decode()
    assert reverse("annotation:item-upload-image", args=[a.pk, upload.token]) in page
    assert 'data-width="100" data-height="80"' in page
    assert 'name="box" value="[[10, 10, 20, 20]]"' in page


@pytest.mark.django_db
def test_documents_without_questions_are_listed_above_the_form(client):
    from tests.factories import spec_study

    study, pool = spec_study({
        "fields": [
            {"key": "useful", "type": "choice", "label": "Are these articles useful?", "choices": ["yes", "no"]},
        ],
        "display": {"show": ["image", "documents"], "collapsed": ["documents"]},
    })
    add_items(study, 1, documents=DOCUMENTS)
    session = f.make_session(f.make_annotator(pool))
    as_annotator(client, session)
    page = client.get(reverse("annotation:items")).content.decode()
    assert '<details class="item-part collapsed part-documents"><summary>Documents' in page
    assert '<a href="https://en.wikipedia.org/wiki/Pookalam" target="_blank" rel="noopener">Pookalam</a>' in page
    assert page.index("part-documents") < page.index('id="item-form"')


@pytest.mark.django_db
def test_the_page_loads_the_shared_script_and_style_once_under_the_annotators_bar(client):
    _, a, page = on_items(client, "caire-relevance")
    assert page.count("annotation/page.js") == 1 and page.count("annotation/page.css") == 1
    assert page.index("annotation/page.js") < page.index("annotation/item.js") and "annotation/review.js" not in page
    assert page.count('id="shortcuts-help"') == 1 and 'popovertarget="shortcuts-help"' in page
    assert page.count(item_image_link(a)) == 2  # the image, and zoomed
    assert 'id="zoom-dialog"' in page
    assert f'<span class="brand">{a.item.study.name}</span>' in page


@pytest.mark.django_db
def test_the_error_banner_names_the_document_of_a_refused_answer(client):
    _, a, _ = on_items(client, "ravenea-doc-relevance", documents=DOCUMENTS)
    page = submit(client, a, {}).content.decode()
    banner = page[page.index('id="form-errors"'):page.index("</div>", page.index('id="form-errors"'))]
    assert "(Onam)</li>" in banner and "(Pookalam)</li>" in banner
    for name in re.findall(r'<a href="#q-([^"]+)" data-error-link>', banner):
        assert f'<legend id="q-{name}">' in page
