"""manage.py prolific: launch (with the preview, optionally publishing), status, and the transitions."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from recruitment.models import ProlificStudy
from studies.models import ItemQuota


def run(*args) -> str:
    out = StringIO()
    call_command("prolific", *map(str, args), stdout=out, stderr=StringIO())
    return out.getvalue()


def test_launch_shows_each_pool_with_its_preview(fake_prolific, study, pool, other_pool, items):
    out = run("launch", study.pk, "--reward", 150, "--minutes", 10, "--filter", "Nationality")
    assert "India (IN): created as a draft, Prolific study" in out and "Japan (JP): created as a draft" in out
    assert "2 places at £1.50, status Draft" in out
    assert "eligible participants: 3000; rewards £3.00, total cost with Prolific's fees £4.00" in out
    assert ProlificStudy.objects.filter(status="UNPUBLISHED").count() == 2
    again = run("launch", study.pk, "--reward", 150, "--minutes", 10, "--filter", "Nationality")
    assert again.count("already on Prolific") == 2 and len(fake_prolific.studies) == 2


def test_launch_one_pool_and_publish(fake_prolific, study, pool, other_pool, items):
    out = run("launch", study.pk, "--pool", "jp", "--reward", 150, "--minutes", 10, "--publish")
    assert "Japan (JP)" in out and "India" not in out and "published: Active" in out
    assert [s["status"] for s in fake_prolific.studies.values()] == ["ACTIVE"]


def test_status_and_transitions(fake_prolific, study, pool, items):
    run("launch", study.pk, "--reward", 150, "--minutes", 10)
    assert "India (IN): Active" in run("publish", study.pk)
    assert "India (IN): Paused" in run("pause", study.pk)
    assert "India (IN): Active" in run("resume", study.pk)
    fake_prolific.studies[ProlificStudy.objects.get(pool=pool).prolific_id]["status"] = "PAUSED"
    status = run("status", study.pk)
    assert "India (IN): " in status and "Paused, 2 places" in status and "Japan (JP): " in status
    assert "Awaiting review" in run("stop", study.pk)


def test_a_failed_transition_fails_the_command(fake_prolific, study, pool, items):
    run("launch", study.pk, "--reward", 150, "--minutes", 10)
    run("publish", study.pk, "--pool", "JP")
    with pytest.raises(CommandError, match=r"pause failed for 1 pool\(s\)"):  # India is still a draft
        run("pause", study.pk)
    assert {s["status"] for s in fake_prolific.studies.values()} == {"UNPUBLISHED", "PAUSED"}


def test_pools_not_on_prolific_are_said_so(fake_prolific, study, pool, items):
    assert "India (IN): not on Prolific" in run("status", study.pk)
    assert "not on Prolific, skipped" in run("publish", study.pk)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["launch", 999, "--reward", 150, "--minutes", 10], "no study with id 999"),
        (["launch", "{study}", "--pool", "FR", "--reward", 150, "--minutes", 10], "no pool FR"),
        (["launch", "{study}", "--reward", 10, "--minutes", 10], "under Prolific's minimum of £6.00 per hour"),
        (["launch", "{study}", "--reward", 150, "--minutes", 10, "--filter", "=x"], "--filter: '=x' names no filter"),
        (["status", "{study}", "--as", "nobody"], "no user named 'nobody'"),
    ],
)
def test_refusals(fake_prolific, study, pool, items, args, message):
    with pytest.raises(CommandError, match=message):
        run(*[str(study.pk) if a == "{study}" else a for a in args])


def test_without_a_token(fake_prolific, no_deployment_token, study, pool, items):
    with pytest.raises(CommandError, match="No Prolific token"):
        run("launch", study.pk, "--reward", 150, "--minutes", 10)


def test_places(fake_prolific, study, pool, items):
    run("launch", study.pk, "--pool", "IN", "--reward", 150, "--minutes", 10, "--publish")
    ItemQuota.objects.filter(pool=pool).update(done=3)
    out = run("places", study.pk)
    assert "India (IN): 0 open slots, 2 places, Paused; paused: the pool is full" in out
    assert "Japan (JP): not on Prolific, skipped" in out


def test_launch_goes_on_past_a_pool_that_fails_then_says_which(fake_prolific, study, pool, other_pool, items):
    fake_prolific.fail_next("POST", "studies/", 400)  # India, tried first
    out = StringIO()
    with pytest.raises(CommandError, match=r"1 of 2 pools not launched \(India: Prolific refused"):
        call_command("prolific", "launch", str(study.pk), "--reward", "150", "--minutes", "10", stdout=out,
                     stderr=StringIO())
    assert "Japan (JP): created as a draft" in out.getvalue()
    assert "India (IN): created as a draft" in run("launch", study.pk, "--reward", 150, "--minutes", 10)


def test_launch_pays_screen_outs_and_checks_the_signed_entry_when_asked(fake_prolific, study, pool, items):
    run("launch", study.pk, "--reward", 150, "--minutes", 10, "--screen-out-reward", 10, "--secured-entry")
    row = ProlificStudy.objects.get(pool=pool)
    assert (row.screen_out_reward, row.secured_entry) == (10, True)
    assert fake_prolific.calls("POST", r"studies/")[-1].body["is_custom_screening"] is True


def test_launch_refuses_a_screen_out_reward_under_prolifics_minimum(fake_prolific, study, pool, items):
    with pytest.raises(CommandError, match="screen-out reward of £0.05 is under Prolific's minimum of £0.10"):
        run("launch", study.pk, "--reward", 150, "--minutes", 10, "--screen-out-reward", 5)
    assert not ProlificStudy.objects.exclude(prolific_id="").exists()
