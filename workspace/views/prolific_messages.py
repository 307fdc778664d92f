"""Messages to a study's Prolific participants and the messages received (issue 28, part 2): the
owner's only, as every page naming its participants' Prolific ids (``participants_study_for_user``:
404 to who does not see the study, 403 to a member), sent and read with the owner's token."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from recruitment import tokens
from recruitment.forms import MessageForm
from recruitment.payout_selectors import participants_study_for_user
from recruitment.prolific import ProlificError
from recruitment.services.launch import RecruitmentRefused
from recruitment.services.messages import prolific_message_send, prolific_messages_received


@login_required
@require_GET
def messages_received(request, pk: int):
    """The htmx fragment with the messages of the last 30 days about the study's Prolific studies."""
    study = participants_study_for_user(request.user, pk)
    try:
        received, error = prolific_messages_received(study=study, user=request.user), ""
    except (ProlificError, tokens.ProlificNotConfigured) as exc:
        received, error = [], str(exc)
    return render(request, "recruitment/_messages.html", {"received": received, "error": error})


@login_required
@require_POST
def message_send(request, pk: int):
    """Send a message to one participant of a pool's study, or to all of them."""
    study = participants_study_for_user(request.user, pk)
    form = MessageForm(request.POST, pools=study.pools.all())
    if not form.is_valid():
        for field, errors in form.errors.items():
            messages.error(request, f"Not sent: {field}: {' '.join(errors)}")
        return redirect("recruitment:study-prolific", pk=study.pk)
    pool = get_object_or_404(study.pools.all(), pk=form.cleaned_data["pool"])
    try:
        result = prolific_message_send(pool=pool, user=request.user, body=form.cleaned_data["body"],
                                       participant_id=form.cleaned_data["participant"].strip())
    except (RecruitmentRefused, ProlificError, tokens.ProlificNotConfigured) as exc:
        messages.error(request, f"Not sent: {exc}")
        return redirect("recruitment:study-prolific", pk=study.pk)
    messages.success(request, f"{pool.country_name}: {result.summary}")
    return redirect("recruitment:study-prolific", pk=study.pk)
