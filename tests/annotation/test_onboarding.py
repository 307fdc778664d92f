from django.test import Client
from django.urls import reverse

from annotation.models import Annotator, MockAttempt
from tests import factories as f
from tests.helpers import enter

PROLIFIC = "https://app.prolific.com/submissions/complete?cc="


def post(client, name, data=None):
    return client.post(reverse(f"annotation:{name}"), data or {})


def test_consent_yes_leads_to_eligibility(client, pool, items):
    enter(client, pool)
    # Straight to the next step, in one redirect; the next-step link leads there too.
    assert post(client, "consent", {"consent": "yes"}).url == reverse("annotation:eligibility")
    assert client.get(reverse("annotation:next")).url == reverse("annotation:eligibility")


def test_declining_consent_asks_to_return_the_study_without_showing_a_code(client, pool, items, study):
    enter(client, pool)
    post(client, "consent", {"consent": "no"})
    page = client.get(reverse("annotation:end")).content.decode()
    # one request: return the study; the button takes them to Prolific, which asks for the return
    assert "please return the study on Prolific" in page
    assert f'href="{PROLIFIC}{study.code_no_consent}" autofocus>Return the study on Prolific</a>' in page
    assert page.count(study.code_no_consent) == 1  # in the link only: no code to copy
    assert "completion code" not in page and "end.js" not in page and "countdown" not in page
    assert Annotator.objects.get().outcome == "no_consent"


def test_the_completion_page_shows_the_code_a_button_and_a_stoppable_countdown(client, pool, items, study):
    enter(client, pool)
    Annotator.objects.update(outcome=Annotator.Outcome.ALL_SKIPPED)  # an ending paid or not after review
    page = client.get(reverse("annotation:end")).content.decode()
    assert f'<strong class="code" id="completion-code">{study.code_all_skipped}</strong>' in page
    assert f'href="{PROLIFIC}{study.code_all_skipped}" autofocus>Return to Prolific now</a>' in page
    assert f'data-countdown="10" data-url="{PROLIFIC}{study.code_all_skipped}" hidden>' in page
    assert "Stay on this page" in page and "annotation/end.js" in page
    assert 'http-equiv="refresh"' not in page  # no redirect that cannot be stopped


def test_eligibility_all_yes_continues(client, pool, items):
    enter(client, pool)
    post(client, "consent", {"consent": "yes"})
    answers = {k: "yes" for k, _ in pool.eligibility_questions()}
    post(client, "eligibility", answers)
    assert client.get(reverse("annotation:next")).url == reverse("annotation:instructions")


def test_one_no_ends_politely_with_the_not_eligible_code(client, pool, items, study):
    enter(client, pool)
    post(client, "consent", {"consent": "yes"})
    answers = {k: "yes" for k, _ in pool.eligibility_questions()} | {"childhood": "no"}
    post(client, "eligibility", answers)
    page = client.get(reverse("annotation:end")).content.decode()
    # asked to return, as Prolific's code for it says (REQUEST_RETURN): no code to be paid or rejected with
    assert f'href="{PROLIFIC}{study.code_not_eligible}" autofocus>Return the study on Prolific</a>' in page
    assert page.count(study.code_not_eligible) == 1 and "completion-code" not in page
    assert "Thank you" in page
    # The decision is final: the items stay closed to them.
    assert client.get(reverse("annotation:items")).url == reverse("annotation:end")


def test_an_unanswered_eligibility_question_is_refused_next_to_it(client, pool, items):
    enter(client, pool)
    post(client, "consent", {"consent": "yes"})
    response = post(client, "eligibility", {"born": "yes"})
    assert response.status_code == 422
    assert response.content.decode().count("Please answer yes or no.") == 3
    assert Annotator.objects.get().eligible_at is None


def test_a_pool_may_skip_the_residence_question(client, study, items):
    relaxed = f.make_pool(study, "BR", "Brazil", require_resident=False)
    assert [k for k, _ in relaxed.eligibility_questions()] == ["born", "nationality", "childhood"]


def test_steps_cannot_be_skipped_by_url(client, pool, items):
    enter(client, pool)
    assert client.get(reverse("annotation:items")).url == reverse("annotation:consent")
    assert client.get(reverse("annotation:mock")).url == reverse("annotation:consent")
    assert post(client, "instructions").url == reverse("annotation:consent")
    assert Annotator.objects.get().instructions_read_at is None


def onboard_to_mock(client, pool):
    enter(client, pool)
    post(client, "consent", {"consent": "yes"})
    post(client, "eligibility", {k: "yes" for k, _ in pool.eligibility_questions()})
    post(client, "instructions")


def test_instructions_render_markdown_safely(client, study, pool, items):
    study.instructions_md = "Rate **carefully**.<script>alert(1)</script>"
    study.save()
    enter(client, pool)
    post(client, "consent", {"consent": "yes"})
    post(client, "eligibility", {k: "yes" for k, _ in pool.eligibility_questions()})
    page = client.get(reverse("annotation:instructions")).content.decode()
    assert "<strong>carefully</strong>" in page and "<script>alert" not in page


def test_passing_the_mock_test_opens_the_items(client, study, pool, items):
    q = f.make_mock_question(study, expected="No")
    onboard_to_mock(client, pool)
    assert client.get(reverse("annotation:next")).url == reverse("annotation:mock")
    response = post(client, "mock", {f"q{q.pk}": "No"})
    assert response.url == reverse("annotation:items")
    assert client.get(reverse("annotation:next")).url == reverse("annotation:items")


def test_a_wrong_answer_costs_an_attempt_and_explains(client, study, pool, items):
    q = f.make_mock_question(study, expected="No")
    q.explanation = "The bicycle is blue, not red."
    q.save()
    onboard_to_mock(client, pool)
    response = post(client, "mock", {f"q{q.pk}": "Completely"})
    assert response.status_code == 422
    page = response.content.decode()
    assert "You answered 0 of 1 correctly" in page and "The bicycle is blue" in page
    assert "Attempts left: <strong>1</strong>" in page


def test_failing_every_attempt_ends_with_the_failed_code(client, study, pool, items):
    q = f.make_mock_question(study, expected="No")
    onboard_to_mock(client, pool)
    post(client, "mock", {f"q{q.pk}": "Completely"})
    response = post(client, "mock", {f"q{q.pk}": "Partially"})
    assert response.url == reverse("annotation:end")
    page = client.get(reverse("annotation:end")).content.decode()
    assert PROLIFIC + study.code_failed_mock in page
    assert Annotator.objects.get().outcome == "failed_mock"
    # No more attempts, even by posting directly.
    assert post(client, "mock", {f"q{q.pk}": "No"}).url == reverse("annotation:end")
    assert MockAttempt.objects.count() == 2


def test_an_unanswered_mock_question_does_not_cost_an_attempt(client, study, pool, items):
    f.make_mock_question(study)
    onboard_to_mock(client, pool)
    response = post(client, "mock", {})
    assert response.status_code == 422 and "Please choose an answer." in response.content.decode()
    assert Annotator.objects.get().mock_attempts == 0


def test_the_example_image_is_served_only_for_the_mock(client, study, pool, items):
    q = f.make_mock_question(study)
    onboard_to_mock(client, pool)
    assert client.get(reverse("annotation:example-image", args=[q.item_id])).status_code == 200
    assert client.get(reverse("annotation:example-image", args=[items[0].pk])).status_code == 404


def test_without_a_practice_test_the_instructions_lead_straight_to_the_items(client, pool, items):
    enter(client, pool)
    post(client, "consent", {"consent": "yes"})
    post(client, "eligibility", {k: "yes" for k, _ in pool.eligibility_questions()})
    assert post(client, "instructions").url == reverse("annotation:items")
    annotator = Annotator.objects.get()
    assert annotator.cleared_at == annotator.instructions_read_at and annotator.mock_passed_at is None


def test_a_practice_test_added_later_does_not_send_annotators_at_work_back(client, study, pool, items):
    enter(client, pool)
    post(client, "consent", {"consent": "yes"})
    post(client, "eligibility", {k: "yes" for k, _ in pool.eligibility_questions()})
    post(client, "instructions")
    f.make_mock_question(study, expected="No")
    assert client.get(reverse("annotation:items")).status_code == 200
    newcomer = Client()
    enter(newcomer, pool, pid="P" * 24, session_id="S2")
    post(newcomer, "consent", {"consent": "yes"})
    post(newcomer, "eligibility", {k: "yes" for k, _ in pool.eligibility_questions()})
    assert post(newcomer, "instructions").url == reverse("annotation:mock")
    assert newcomer.get(reverse("annotation:items")).url == reverse("annotation:mock")


def step_shown(client, name) -> str:
    page = client.get(reverse(f"annotation:{name}")).content.decode()
    return page.split('<span class="muted" id="step-count">')[1].split("</span>")[0]


def test_the_steps_count_the_questions_and_the_practice_test_when_there_are_some(client, study, pool, items):
    f.make_mock_question(study, expected="No")
    enter(client, pool)
    assert step_shown(client, "consent") == "Step 1 of 5"
    post(client, "consent", {"consent": "yes"})
    assert step_shown(client, "eligibility") == "Step 2 of 5"
    post(client, "eligibility", {k: "yes" for k, _ in pool.eligibility_questions()})
    assert step_shown(client, "instructions") == "Step 3 of 5"
    post(client, "instructions")
    assert step_shown(client, "mock") == "Step 4 of 5"


def test_a_pool_without_questions_and_a_study_without_a_practice_test_count_three_steps(client, study, items):
    plain = f.make_pool(study, "BR", "Brazil", require_born=False, require_nationality=False,
                        require_childhood=False, require_resident=False)
    f.make_items(study, "BR", 2)
    enter(client, plain)
    assert step_shown(client, "consent") == "Step 1 of 3"
    # no eligibility page with nothing to ask: consent leads to the instructions
    assert post(client, "consent", {"consent": "yes"}).url == reverse("annotation:instructions")
    assert Annotator.objects.get().eligible_at is not None
    assert step_shown(client, "instructions") == "Step 2 of 3"
    assert post(client, "instructions").url == reverse("annotation:items")
