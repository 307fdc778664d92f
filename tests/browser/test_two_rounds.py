"""Two rounds of a study on (the fake) Prolific from the browser: round 1 runs, the researcher
invites its top annotators back as a participant group (the bar previewed first), blocks a
participant on a phone, and launches round 2 restricted to the group: Prolific (the fake, which
enforces the filters) lets the top annotator in and refuses round 1's others and the blocked one."""

import pytest

from recruitment.models import ParticipantGroup, ProlificStudy
from recruitment.services import rounds
from recruitment.services.rounds import ScoreRow
from tests import factories as f
from tests.browser.helpers import log_in
from tests.recruitment.fake_prolific import fake_prolific_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TOP, OTHER, BLOCKED = "aa1b2c3d4e5f6a7b8c9d0e1f", "bb1b2c3d4e5f6a7b8c9d0e1f", "cc1b2c3d4e5f6a7b8c9d0e1f"


@pytest.fixture
def prolific(settings, live_server):
    with fake_prolific_for(settings, site_url="https://tessera.test") as fake:
        yield fake


@pytest.fixture
def scores(monkeypatch):
    """Round 1's quality scores as the analysis would give them (the reader the workspace registers
    is replaced: the analysis itself is tested in tests/analysis)."""
    rows = [ScoreRow(TOP, 0.92, 1.0, False), ScoreRow(OTHER, 0.41, 0.5, False), ScoreRow(BLOCKED, 0.95, 1.0, True)]
    monkeypatch.setattr(rounds, "_score_source", [lambda study: rows])


def _launch_on_page(page, live_server, study, *, restrict_to: str | None = None):
    page.goto(f"{live_server.url}/prolific/studies/{study.pk}/")
    page.get_by_label("Reward per participant").fill("1.50")
    page.get_by_label("Estimated completion time (minutes)").fill("10")
    if restrict_to:
        page.locator("#id_allow_groups").get_by_label(restrict_to).check()
    page.get_by_role("button", name="Create the drafts on Prolific").click()
    page.get_by_text("Created as Prolific drafts: India").wait_for()
    page.get_by_role("button", name="Publish every draft").click()
    page.get_by_text("India: Active").wait_for()
    return ProlificStudy.objects.get(pool__study=study, pool__country="IN").prolific_id


def test_a_second_round_is_restricted_to_the_first_rounds_top_annotators(
    browser, page, live_server, prolific, scores, owner, study, pool, items
):
    # Round 1 runs: three participants take it on Prolific.
    study.items_per_session = 1
    study.save()
    log_in(page, live_server, owner.username)
    round1 = _launch_on_page(page, live_server, study)
    for pid in (TOP, OTHER, BLOCKED):
        f.make_annotator(pool, pid)
        prolific.submission_start(round1, pid)

    # Invite back: a bad bar is refused next to its field, then the count is previewed, then created.
    page.goto(f"{live_server.url}/prolific/studies/{study.pk}/")
    page.get_by_role("link", name="Invite back").click()
    page.get_by_label("Group name").fill("Round 1 top")
    page.get_by_label("Least quality score (0–1)").fill("1.5")
    page.get_by_role("button", name="Preview how many").click()
    page.get_by_role("alert").filter(has_text="between 0 and 1").wait_for()
    page.get_by_label("Least quality score (0–1)").fill("0.8")
    page.keyboard.press("Enter")  # the keyboard submits the first button: the preview
    page.locator("#invite-preview").filter(has_text="1 of 3").wait_for()
    assert not prolific.groups  # a preview creates nothing
    page.get_by_role("button", name="Create the group on Prolific").click()
    page.get_by_role("cell", name="Round 1 top", exact=True).wait_for()
    group = ParticipantGroup.objects.get(kind="invite")
    assert list(prolific.members[group.prolific_id]) == [TOP]

    # The blocked participant, added on a phone.
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    mobile = phone.new_page()
    log_in(mobile, live_server, owner.username)
    mobile.goto(f"{live_server.url}/prolific/blocked/")
    mobile.get_by_label("Prolific participant id").fill(BLOCKED)
    mobile.get_by_label("Why").fill("Answered at random in round 1")
    mobile.get_by_role("button", name="Block").tap()
    mobile.get_by_role("cell", name=BLOCKED, exact=True).wait_for()
    assert mobile.evaluate("document.documentElement.scrollWidth") <= 390
    phone.close()

    # Round 2, restricted to the group on the launch form.
    round2_study = f.make_study(owner, name="CulturalFrames round 2", items_per_session=1)
    f.make_pool(round2_study, "IN", "India")
    f.make_items(round2_study, "IN", 3)
    round2 = _launch_on_page(page, live_server, round2_study, restrict_to="Round 1 top (1)")
    sent = prolific.studies[round2]["filters"]
    assert {"filter_id": "participant_group_allowlist", "selected_values": [group.prolific_id]} in sent
    blocklist = next(x for x in sent if x["filter_id"] == "participant_group_blocklist")
    assert [list(prolific.members[g]) for g in blocklist["selected_values"]] == [[BLOCKED]]

    # Prolific lets the top annotator in and refuses round 1's others.
    assert prolific.submission_start(round2, TOP)
    for pid in (OTHER, BLOCKED):
        with pytest.raises(ValueError, match="not eligible"):
            prolific.submission_start(round2, pid)
