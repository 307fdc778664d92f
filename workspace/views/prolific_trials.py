"""Walk a study as a participant before publishing (issue 28, part 2): on the study's Prolific page,
each pool's test entry link (signed here, walked in the path preview: nothing stored), and a test
copy of the pool's draft on Prolific for the researcher's test participant, where the workspace has
the feature. The owner's only (``participants_study_for_user``: a member 403, anyone else 404): a test
participant is made for the owner's email and the calls use their token."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from annotation.trial_entry import trial_link
from recruitment import tokens
from recruitment.payout_selectors import participants_study_for_user
from recruitment.prolific import ProlificError
from recruitment.services.launch import RecruitmentRefused
from recruitment.services.trials import prolific_test_study_create


def trial_rows(pools) -> list[dict]:
    """For the page: each pool (``selectors.prolific_pools``' rows) with a fresh test entry link."""
    return [{"pool": row.pool, "prolific_study": row.prolific_study, "link": trial_link(row.pool)} for row in pools]


@login_required
@require_POST
def trial_study(request, pk: int, pool_pk: int):
    """The owner's Prolific test participant (made once) and a test copy of the pool's draft."""
    study = participants_study_for_user(request.user, pk)
    pool = get_object_or_404(study.pools.all(), pk=pool_pk)
    try:
        made = prolific_test_study_create(pool=pool, user=request.user)
    except ProlificError as exc:
        messages.error(request, f"Prolific refused a test study for {pool.country_name}: {exc}. The test link "
                                "below walks the same pages here.")
    except (RecruitmentRefused, tokens.ProlificNotConfigured) as exc:
        messages.error(request, f"No test study on Prolific: {exc}")
    else:
        messages.success(request, f"{pool.country_name}: Prolific's test study {made.study_id} is ready for your "
                                  f"test participant {made.participant_id}: {made.study_url or 'open it on Prolific'}.")
    return redirect("recruitment:study-prolific", pk=study.pk)
