"""The rounds' bar read from a real analysis run (``workspace/rounds_scores.py``, registered at start-up):
each annotator's Prolific id, quality score (MACE competence on the first scored question), gold
accuracy and exclusion, pool by pool; and an invite-back that picks exactly who meets the bar (never
an excluded or blocked annotator, nor one on the researcher's block list)."""

import pytest
from django.utils import timezone

from analysis.quality import score_rows
from annotation.models import Assignment, CheckAnswer
from annotation.services import annotator_block, annotator_exclude
from recruitment.models import ParticipantGroup
from recruitment.services import rounds
from recruitment.services.rounds import Bar
from tests import factories as f
from tests.annotations import annotate, run_now
from workspace import rounds_scores

pytestmark = pytest.mark.django_db

AGREE = [1, 0, 0.5, 1]  # each item's alignment as the agreeing annotators rate it
ODD = [0, 1, 1, 0]  # the one at odds with them


def gold_answer(annotator, passed: bool, position: int) -> None:
    """``annotator`` answered a gold item (right or not) in their session."""
    item = f.make_item(annotator.study, annotator.pool.country, check_kind="gold", expected={"overall": 5})
    session = annotator.sessions.first() or f.make_session(annotator)
    now = timezone.now()
    assignment = Assignment.objects.create(session=session, annotator=annotator, item=item, pool=annotator.pool,
                                           position=position, leased_at=now, expires_at=now, status="submitted")
    CheckAnswer.objects.create(assignment=assignment, annotator=annotator, session=session, item=item, kind="gold",
                               answers={"overall": 5 if passed else 1}, passed=passed, time_spent_ms=1000)


@pytest.fixture
def cast(study, pool, other_pool, owner):
    """India: three who agree (gold 1.0, 0.5, none), one at odds, one who agrees but is excluded, one
    who agrees but is blocked, one who agrees but is on the researcher's block list, one who answered
    nothing; Japan: three who agree. Then the analysis is run."""
    india = f.make_items(study, "IN", 4)
    japan = f.make_items(study, "JP", 4)
    names = ["good", "fair", "nogold", "odd", "excluded", "blocked", "listed", "idle"]
    who = {name: f.make_annotator(pool, f"in{n:022d}") for n, name in enumerate(names)}
    for name, annotator in who.items():
        if name == "idle":
            continue
        for item, value in zip(india, ODD if name == "odd" else AGREE, strict=True):
            annotate(annotator, item, alignment=value)
    for n in range(3):
        who[f"jp{n}"] = f.make_annotator(other_pool, f"jp{n:022d}")
        for item, value in zip(japan, AGREE, strict=True):
            annotate(who[f"jp{n}"], item, alignment=value)
    gold_answer(who["good"], True, 101)
    gold_answer(who["good"], True, 102)
    gold_answer(who["fair"], True, 101)
    gold_answer(who["fair"], False, 102)
    gold_answer(who["excluded"], True, 101)
    annotator_exclude(annotator=who["excluded"], by=owner, reason="Copied the answers of another")
    annotator_block(annotator=who["blocked"])
    rounds.participant_block(user=owner, participant_id=who["listed"].prolific_pid, reason="Abusive messages")
    run = run_now(study, owner)
    return who, run


def competences(run) -> dict[int, float]:
    """Each annotator's MACE competence on the first scored question, as the run stored it (every pool)."""
    first = run.result["quality"]["fields"][0]
    assert first["key"] == "alignment"
    return {r["annotator_id"]: r["competence"] for p in first["pools"] for r in score_rows(p)}


def test_the_reader_gives_each_annotators_scores_from_the_latest_run(cast):
    who, run = cast
    rows = {r.participant_id: r for r in rounds_scores.study_score_rows(run.study)}
    assert set(rows) == {a.prolific_pid for a in who.values()}  # both pools, the idle one too
    stored = competences(run)
    for name, annotator in who.items():
        row = rows[annotator.prolific_pid]
        if name == "idle":
            assert row.quality is None  # not scored: fails a bar on it
        else:
            assert row.quality == pytest.approx(stored[annotator.pk]), name
            assert 0 <= row.quality <= 1
    gold = {name: rows[a.prolific_pid].gold_accuracy for name, a in who.items()}
    assert (gold["good"], gold["fair"], gold["nogold"], gold["jp0"]) == (1.0, 0.5, None, None)
    excluded = {name for name, a in who.items() if rows[a.prolific_pid].excluded}
    assert excluded == {"excluded", "blocked"}  # the block list is the researcher's, not the annotator's row
    assert rows[who["odd"].prolific_pid].quality < min(rows[who[n].prolific_pid].quality for n in ("good", "fair"))


def test_the_registered_reader_is_the_real_one(cast):
    who, run = cast
    assert rounds.study_score_rows(run.study) == rounds_scores.study_score_rows(run.study)


def test_a_later_run_is_the_one_read(cast, owner):
    who, run = cast
    gold_answer(who["nogold"], True, 101)
    assert rounds_scores.study_score_rows(run.study) == rounds_scores.study_score_rows(run.study)
    before = {r.participant_id: r.gold_accuracy for r in rounds_scores.study_score_rows(run.study)}
    assert before[who["nogold"].prolific_pid] is None  # not in the run read yet
    run_now(run.study, owner)
    after = {r.participant_id: r.gold_accuracy for r in rounds_scores.study_score_rows(run.study)}
    assert after[who["nogold"].prolific_pid] == 1.0


def ids(who, *names) -> list[str]:
    return sorted(who[n].prolific_pid for n in names)


def bar_between(who, run) -> float:
    """A least quality score the agreeing annotators meet and the odd one does not."""
    rows = {r.participant_id: r.quality for r in rounds_scores.study_score_rows(run.study)}
    low = rows[who["odd"].prolific_pid]
    high = min(rows[who[n].prolific_pid] for n in ("good", "fair", "nogold", "jp0", "jp1", "jp2"))
    assert low < high
    return (low + high) / 2


def test_invite_back_picks_exactly_who_meets_the_bar(cast, fake_prolific, owner):
    who, run = cast
    bar = Bar(min_quality=bar_between(who, run))
    preview = rounds.invite_preview(study=run.study, bar=bar)
    assert preview.participant_ids == ids(who, "good", "fair", "nogold", "jp0", "jp1", "jp2")
    assert preview.annotators == len(who)
    group = rounds.invite_back(study=run.study, bar=bar, name="Round 1 top", user=owner)
    assert sorted(fake_prolific.members[group.prolific_id]) == preview.participant_ids
    assert sorted(group.members.values_list("participant_id", flat=True)) == preview.participant_ids


def test_a_gold_bar_keeps_only_who_answered_gold_well_enough(cast, fake_prolific, owner):
    who, run = cast
    assert rounds.invite_preview(study=run.study, bar=Bar(min_gold=0.75)).participant_ids == ids(who, "good")
    assert rounds.invite_preview(study=run.study, bar=Bar(min_gold=0.5)).participant_ids == ids(who, "good", "fair")


def test_allowing_exclusions_takes_the_excluded_but_never_the_block_list(cast, fake_prolific, owner):
    who, run = cast
    bar = Bar(min_quality=bar_between(who, run), no_exclusions=False)
    picked = rounds.invite_preview(study=run.study, bar=bar).participant_ids
    assert who["listed"].prolific_pid not in picked
    group = rounds.invite_back(study=run.study, bar=bar, name="Everyone", user=owner)
    assert who["listed"].prolific_pid not in fake_prolific.members[group.prolific_id]
    assert not ParticipantGroup.objects.filter(members__participant_id=who["listed"].prolific_pid).exists()
