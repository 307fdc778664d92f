"""/api/v1/studies/{id}/prolific/bonuses/: bonuses written down with the bonus form's checks, set up
on (the fake) Prolific then paid, once, as jobs; the owner's only; another study's bonus not found."""

import pytest

from recruitment.models import ProlificBonus, ProlificJob
from tests import factories as f
from tests.recruitment.review_helpers import read_back, take_part


def url(study, rest=""):
    return f"/api/v1/studies/{study.pk}/prolific/bonuses/{rest}"


@pytest.fixture
def taken_part(fake_prolific, live, owner):  # noqa: F811
    ids = [take_part(fake_prolific, live, annotate=False) for _ in range(2)]
    subs = read_back(live, owner)
    return [subs[i] for i in ids]


def sent(client, django_capture_on_commit_callbacks, address):
    with django_capture_on_commit_callbacks(execute=True):
        return client.post(address, format="json")


def test_bonuses_are_written_down_set_up_then_paid_once(
    fake_prolific, owner, study, live, taken_part, as_user, django_capture_on_commit_callbacks  # noqa: F811
):
    first, second = taken_part
    client = as_user(owner)
    lines = [f"{first.prolific_id},1.50", f"{second.participant_id},0.75"]
    response = client.post(url(study), {"pool": live.pool_id, "lines": lines}, format="json")
    assert response.status_code == 201, response.json()
    bonus = response.json()
    assert (bonus["state"], bonus["amount"], bonus["currency"], bonus["fees"]) == ("draft", 225, "GBP", None)
    assert bonus["lines"] == [{"who": first.prolific_id, "amount": 150}, {"who": second.participant_id, "amount": 75}]
    assert not fake_prolific.calls("POST", r"submissions/bonus-payments/")  # nothing sent yet
    setup = sent(client, django_capture_on_commit_callbacks, url(study, f"{bonus['id']}/setup/"))
    assert setup.status_code == 202 and setup.json()["kind"] == "bonus_setup"
    assert client.get(setup.json()["url"]).json()["status"] == "done"
    shown = client.get(url(study, f"{bonus['id']}/")).json()
    assert (shown["state"], shown["fees"], shown["total_amount"]) == ("set_up", 75, 300) and shown["prolific_id"]
    paid = sent(client, django_capture_on_commit_callbacks, url(study, f"{bonus['id']}/pay/"))
    assert paid.status_code == 202 and client.get(paid.json()["url"]).json()["status"] == "done"
    again = client.post(url(study, f"{bonus['id']}/pay/"), format="json")
    assert again.status_code == 409 and again.json() == {"detail": "Nothing sent: the bonus is paid (prolific pays "
                                                                    "within minutes)."}
    assert fake_prolific.bonuses[shown["prolific_id"]]["payments"] == 1
    assert [b["id"] for b in client.get(url(study)).json()["results"]] == [bonus["id"]]


def test_a_payment_under_way_is_not_sent_again(owner, study, live, taken_part, as_user):
    bonus = ProlificBonus.objects.create(prolific_study=live, lines=[{"who": "x", "amount": 5}], amount=5,
                                         state=ProlificBonus.State.SET_UP, prolific_id="B1")
    client = as_user(owner)
    assert client.post(url(study, f"{bonus.pk}/pay/"), format="json").status_code == 202
    again = client.post(url(study, f"{bonus.pk}/pay/"), format="json")
    assert again.status_code == 409 and again.json() == {"detail": "Already under way."}
    assert ProlificJob.objects.filter(bonus=bonus).count() == 1
    assert client.post(url(study, f"{bonus.pk}/refund/"), format="json").status_code == 404


@pytest.mark.parametrize("lines, says", [
    (["f" * 24 + ",1.00"], "Not a submission or participant of this pool's study"),
    (["{sub},1.005"], "two decimals at most"),
    (["{sub},1.00", "{sub},2.00"], "listed twice"),
    (["{sub},0"], "more than 0"),
    ([], "This field is required."),
    ([["a list"]], "Item 1: Not a valid string."),
])
def test_bad_bonus_lines_are_a_400_naming_lines(owner, study, live, taken_part, as_user, lines, says):
    body = {"pool": live.pool_id, "lines": [line.format(sub=taken_part[0].prolific_id) if isinstance(line, str)
                                            else line for line in lines]}
    response = as_user(owner).post(url(study), body, format="json")
    assert response.status_code == 400 and says in " ".join(response.json()["lines"]), response.json()
    assert not ProlificBonus.objects.exists()


def test_a_pool_not_on_prolific_takes_no_bonus(owner, study, live, other_pool, taken_part, as_user):
    body = {"pool": other_pool.pk, "lines": [f"{taken_part[0].prolific_id},1.00"]}
    response = as_user(owner).post(url(study), body, format="json")
    assert response.status_code == 400 and response.json() == {"pool": ["Not a pool of this study on Prolific."]}


def test_the_list_costs_the_same_for_more_bonuses(owner, study, live, as_user, django_assert_max_num_queries):
    client = as_user(owner)
    client.get(url(study))
    for n in range(3):
        ProlificBonus.objects.create(prolific_study=live, lines=[{"who": "x", "amount": 5}], amount=5)
        with django_assert_max_num_queries(3):  # the token, the study scoped, the page with its pool
            assert len(client.get(url(study)).json()["results"]) == n + 1


def test_another_studys_bonus_is_not_found(owner, other_researcher, study, live, as_user):
    bonus = ProlificBonus.objects.create(prolific_study=live, lines=[{"who": "x", "amount": 5}], amount=5)
    theirs = f.make_study(other_researcher, name="Theirs")
    client = as_user(other_researcher)
    assert client.get(url(theirs, f"{bonus.pk}/")).status_code == 404
    assert client.post(url(theirs, f"{bonus.pk}/setup/"), format="json").status_code == 404
    assert as_user(owner).get(url(study, f"{bonus.pk + 1}/")).status_code == 404
    assert not ProlificJob.objects.exists()


@pytest.mark.parametrize("method, rest", [("get", ""), ("post", ""), ("get", "{bonus}/"), ("post", "{bonus}/setup/")])
def test_only_the_owner_handles_bonuses(
    fake_prolific, study, live, refuse_all_but_the_owner, method, rest,  # noqa: F811
):
    bonus = ProlificBonus.objects.create(prolific_study=live, lines=[{"who": "x", "amount": 5}], amount=5)
    address = url(study, rest.format(bonus=bonus.pk))
    body = {"pool": live.pool_id, "lines": ["x,1.00"]}
    before = len(fake_prolific.requests)
    refuse_all_but_the_owner(method, address, body)
    assert ProlificBonus.objects.count() == 1 and not ProlificJob.objects.exists()
    assert len(fake_prolific.requests) == before


HUGE = "9" * 30


@pytest.mark.parametrize("method, rest", [
    ("get", f"jobs/{HUGE}/"), ("get", f"bonuses/{HUGE}/"), ("post", f"bonuses/{HUGE}/pay/"),
    ("post", f"submissions/{HUGE}/reject/"), ("get", "submissions/?cursor=garbage"), ("get", "jobs/?page_size=-5"),
])
def test_a_hostile_address_is_refused_without_a_500(owner, study, live, as_user, method, rest):
    response = getattr(as_user(owner), method)(f"/api/v1/studies/{study.pk}/prolific/{rest}", {}, format="json")
    assert response.status_code in (400, 404), response.content
