"""A study's pools on Prolific over the API (/api/v1/studies/{id}/prolific/…): their link status,
the launch and the transitions of the study's Prolific page, the submissions of its review page,
the review's actions (read from Prolific, approve, reject, request a return) as jobs to poll, and
bonuses (written down, then set up and paid as jobs).

Everything here is the owner's only (a member 403, anyone else 404), as on the pages: a call to
Prolific uses the acting researcher's token and spends their money (``study_for_user(owner_only=True)``),
and what lists the participants (submissions, jobs, bonuses) shows their Prolific ids beside the
annotators' pseudonyms (``participants_study_for_user``, the review pages' rule).
Each view checks the input with the page's form and calls the page's service. A refusal of the
study's state (no pool on Prolific, no Prolific token, a submission not awaiting review) is a 409;
Prolific refusing or not answering, a 502 with its message."""

from __future__ import annotations

from django.db.models import Count
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from recruitment import services
from recruitment.forms import LaunchForm
from recruitment.models import ProlificBonus, ProlificJob, ProlificStudy, ProlificSubmission
from recruitment.payout_forms import BonusForm, RejectForm, ReturnForm, ReviewFilterForm
from recruitment.payout_selectors import (
    bonuses_of,
    code_meanings,
    participants_study_for_user,
    payout_jobs_of,
    payout_submissions,
)
from recruitment.prolific import ProlificError
from recruitment.selectors import prolific_studies_of
from recruitment.services import payouts_start
from recruitment.services.launch import TRANSITIONS
from recruitment.tokens import ProlificNotConfigured
from studies.selectors import study_for_user

from . import prolific_serializers as s
from .base import CursorPage
from .jobs import ACTIVE, POLL_SECONDS, job_response
from .validation import form_cleaned, typed

VERBS = tuple(TRANSITIONS)  # publish, pause, resume, stop: what the study's Prolific page offers


class StateRefused(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "conflict"


class ProlificFailed(APIException):
    status_code = status.HTTP_502_BAD_GATEWAY
    default_code = "prolific"


REFUSED = {
    409: OpenApiResponse(s.RefusalSerializer, description="The study's state refuses it (the page's message): no "
                         "pool on Prolific, no Prolific token, a launch under way, a submission's status."),
    502: OpenApiResponse(s.RefusalSerializer, description="Prolific refused or did not answer (its message)."),
}


BAD_FILTER = OpenApiResponse(
    {"$ref": "#/components/schemas/FieldErrors"},  # api/schema.py's
    description="A filter refused: each named with the review page's messages.",
)


def refusal(exc: Exception) -> APIException:
    """A service's refusal as the API answers it: Prolific's as a 502, ours as a 409."""
    return ProlificFailed(str(exc)) if isinstance(exc, ProlificError) else StateRefused(str(exc))


class Refusals:
    """A Prolific action's view: the services' refusals answered as ``refusal`` says (never a 500)."""

    def handle_exception(self, exc):
        if isinstance(exc, (ProlificNotConfigured, services.RecruitmentRefused, ProlificError)):
            exc = refusal(exc)
        return super().handle_exception(exc)  # type: ignore[misc]


def owned_study(request: Request, pk: int):
    return study_for_user(request.user, pk, owner_only=True)


def participants_study(request: Request, pk: int):
    """A study whose participants the caller may see, by the review pages' rule (a member: 403)."""
    return participants_study_for_user(request.user, pk)


def linked(study) -> None:
    """A 409 with the page's message when no pool of the study is on Prolific."""
    if not ProlificStudy.objects.filter(pool__study=study).exclude(prolific_id="").exists():
        raise StateRefused(payouts_start.NOT_LINKED)


def pool_chosen(study, pool_id: int | None) -> list | None:
    """The pool named in the body (one of the study's, else a 400 naming ``pool``), or None: every pool."""
    if pool_id is None:
        return None
    pool = study.pools.filter(pk=pool_id).first()
    if pool is None:
        raise ValidationError({"pool": ["Not a pool of this study."]})
    return [pool]


def with_counts(rows: list[ProlificStudy]) -> list[ProlificStudy]:
    """Each row with ``counts``: its submissions by status (one grouped query)."""
    counts: dict[int, dict[str, int]] = {}
    grouped = (
        ProlificSubmission.objects.filter(prolific_study__in=[r.pk for r in rows])
        .values("prolific_study", "status").annotate(n=Count("pk")).order_by()
    )
    for g in grouped:
        counts.setdefault(g["prolific_study"], {})[g["status"]] = g["n"]
    for row in rows:
        row.counts = counts.get(row.pk, {})
    return rows


def jobs_started(request: Request, study, jobs: list[ProlificJob]) -> Response:
    """202 with the jobs started (one a pool), each with its address to poll."""
    shown = list(payout_jobs_of(study=study).filter(pk__in=[j.pk for j in jobs]).order_by("pk"))
    response = Response(s.JobsStartedSerializer({"jobs": shown}, context={"request": request}).data,
                        status=status.HTTP_202_ACCEPTED)
    if any(job.status in ACTIVE for job in shown):
        response["Retry-After"] = str(POLL_SECONDS)
    return response


def job_started(request: Request, study, job: ProlificJob) -> Response:
    shown = payout_jobs_of(study=study).get(pk=job.pk)
    where = reverse("api:prolific-job", args=[study.pk, job.pk])
    return job_response(request, shown, s.ProlificJobSerializer, where, started=True)


# --- the pools' studies on Prolific ----------------------------------------------------------


class ByPool(CursorPage):
    ordering = "pk"


class ProlificStudyList(generics.ListAPIView):
    """Each pool's study on Prolific (only pools launched, or being launched): its status, places,
    reward, time and its submissions counted by status; an empty list when none is."""

    serializer_class = s.ProlificStudySerializer
    pagination_class = ByPool

    def get_queryset(self):
        return prolific_studies_of(study=owned_study(self.request, self.kwargs["pk"]))

    def paginate_queryset(self, queryset):
        return with_counts(super().paginate_queryset(queryset) or [])


class ProlificLaunch(Refusals, generics.GenericAPIView):
    serializer_class = s.LaunchResultSerializer
    pagination_class = None  # one result a pool of the study

    @extend_schema(request=s.LaunchSerializer, responses={200: s.LaunchResultSerializer(many=True), **REFUSED})
    def post(self, request: Request, pk: int) -> Response:
        """Create the Prolific draft of every pool not on Prolific yet (or of ``pool``), with the launch
        form's checks and messages; a pool already there is left as it is. One pool's failure does
        not stop the others: each result says whether it is on Prolific, or why not (``error``); send
        ``pool`` to try a failed one again. Publish them next."""
        study = owned_study(request, pk)
        given = typed(s.LaunchSerializer, request.data)
        pools = pool_chosen(study, given.pop("pool", None))
        reward = given.get("screen_out_reward")
        form = LaunchForm({
            "reward": str(given["reward"]),
            "minutes": given["minutes"],
            "max_minutes": "" if given.get("max_minutes") is None else given["max_minutes"],
            "devices": given.get("devices", LaunchForm.base_fields["devices"].initial),
            "filters": "\n".join(given.get("filters", [])),
            "auto_approve": given.get("auto_approve", False),
            "description": given.get("description", ""),
            "screen_out_reward": "" if reward is None else str(reward),
            "secured_entry": given.get("secured_entry", False),
            **{name: given[name] for name in LaunchForm.ROUND_FIELDS if name in given},
        }, user=request.user, study=study)
        # a round choice the form does not offer (no group, no earlier study of the user's) is refused,
        # never dropped: a launch meant to be restricted must not go out open to everyone
        form_cleaned(form, {name: ["You have nothing to choose here: no participant group or earlier study of yours."]
                            for name in LaunchForm.ROUND_FIELDS if given.get(name) and name not in form.fields})
        results = services.prolific_studies_launch(study=study, user=request.user, options=form.options(),
                                                   pools=pools)
        failed = [r for r in results if not r.ok]
        if failed and len(failed) == len(results) and failed[0].failure is not None:
            raise failed[0].failure  # nothing launched: the first refusal, as a 409 or a 502
        with_counts([r.prolific_study for r in results if r.prolific_study is not None])
        return Response(s.LaunchResultSerializer(results, many=True).data)


class ProlificTransition(Refusals, generics.GenericAPIView):
    serializer_class = s.TransitionResultSerializer
    pagination_class = None  # one result a pool of the study

    @extend_schema(
        operation_id="studies_prolific_transition", request=s.PoolChoiceSerializer,
        responses={200: s.TransitionResultSerializer(many=True), **REFUSED},
        parameters=[OpenApiParameter("verb", OpenApiTypes.STR, OpenApiParameter.PATH, enum=VERBS)],
    )
    def post(self, request: Request, pk: int, verb: str) -> Response:
        """Publish, pause, resume or stop every pool's study on Prolific (or ``pool``'s), as the page
        does: one pool's failure does not stop the others, and each result says what happened."""
        study = owned_study(request, pk)
        if verb not in VERBS:
            raise Http404
        pools = pool_chosen(study, typed(s.PoolChoiceSerializer, request.data).get("pool"))
        results = services.prolific_studies_transition(study=study, verb=verb, user=request.user, pools=pools)
        if not results:
            raise StateRefused(payouts_start.NOT_LINKED)
        return Response(s.TransitionResultSerializer(results, many=True).data)


# --- the submissions and the review's actions ------------------------------------------------


class SubmissionList(generics.ListAPIView):
    """The study's submissions as last read from Prolific (refresh to read them again), newest
    first; filtered by ``pool`` and ``status`` (the review page's filters and messages)."""

    serializer_class = s.SubmissionSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter("pool", OpenApiTypes.INT, description="A pool of the study."),
            OpenApiParameter("status", OpenApiTypes.STR, enum=ProlificSubmission.Status.values,
                             description="Prolific's status."),
        ],
        responses={200: s.SubmissionSerializer(many=True), 400: BAD_FILTER},
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        self.study = participants_study(self.request, self.kwargs["pk"])
        asked = {key: self.request.query_params.get(key, "") for key in ("pool", "status")}
        chosen = form_cleaned(ReviewFilterForm(asked, study=self.study))
        return payout_submissions(study=self.study, pool=chosen["pool"], status=chosen["status"] or "")

    def get_serializer_context(self):
        return super().get_serializer_context() | {"code_meanings": code_meanings(self.study)}


class ProlificRefresh(Refusals, generics.GenericAPIView):
    serializer_class = s.JobsStartedSerializer

    @extend_schema(request=s.PoolChoiceSerializer, responses={202: s.JobsStartedSerializer, **REFUSED})
    def post(self, request: Request, pk: int) -> Response:
        """Read every pool's submissions from Prolific (or ``pool``'s): a job a pool."""
        study = owned_study(request, pk)
        pools = pool_chosen(study, typed(s.PoolChoiceSerializer, request.data).get("pool"))
        jobs = payouts_start.prolific_refresh_start(study=study, user=request.user, pool=pools and pools[0])
        return jobs_started(request, study, jobs)


class ProlificApprove(Refusals, generics.GenericAPIView):
    serializer_class = s.JobsStartedSerializer

    @extend_schema(request=s.ApproveSerializer, responses={202: s.JobsStartedSerializer, **REFUSED})
    def post(self, request: Request, pk: int) -> Response:
        """Approve submissions awaiting review: one by its transition, several by Prolific's bulk
        approval, a job a pool."""
        study = owned_study(request, pk)
        ids = set(typed(s.ApproveSerializer, request.data)["submissions"])
        linked(study)
        chosen = list(
            ProlificSubmission.objects.filter(prolific_study__pool__study=study, pk__in=ids)
            .select_related("prolific_study__pool")
        )
        if missing := sorted(ids - {sub.pk for sub in chosen}):
            raise ValidationError({"submissions": [f"Not submissions of this study: {', '.join(map(str, missing))}."]})
        jobs = payouts_start.prolific_approve_start(user=request.user, submissions=chosen)
        return jobs_started(request, study, jobs)


def submission_of(study, sub_id: int) -> ProlificSubmission:
    return get_object_or_404(
        ProlificSubmission.objects.select_related("prolific_study__pool"), pk=sub_id,
        prolific_study__pool__study=study,
    )


class ProlificReject(Refusals, generics.GenericAPIView):
    serializer_class = s.ProlificJobSerializer

    @extend_schema(request=s.RejectSerializer, responses={202: s.ProlificJobSerializer, **REFUSED})
    def post(self, request: Request, pk: int, sub_id: int) -> Response:
        """Reject a submission awaiting review, with Prolific's category and a message of at least
        100 characters (the reject page's form and messages)."""
        study = owned_study(request, pk)
        sub = submission_of(study, sub_id)
        cleaned = form_cleaned(RejectForm(typed(s.RejectSerializer, request.data)))
        job = payouts_start.prolific_reject_start(
            submission=sub, user=request.user, category=cleaned["category"], message=cleaned["message"])
        return job_started(request, study, job)


class ProlificReturn(Refusals, generics.GenericAPIView):
    serializer_class = s.ProlificJobSerializer

    @extend_schema(request=s.ReturnSerializer, responses={202: s.ProlificJobSerializer, **REFUSED})
    def post(self, request: Request, pk: int, sub_id: int) -> Response:
        """Ask the participant of an active submission, or one awaiting review, to return the study."""
        study = owned_study(request, pk)
        sub = submission_of(study, sub_id)
        given = typed(s.ReturnSerializer, request.data)
        cleaned = form_cleaned(ReturnForm({"reasons": "\n".join(given["reasons"])}))
        job = payouts_start.prolific_return_start(submission=sub, user=request.user, reasons=cleaned["reasons"])
        return job_started(request, study, job)


class ProlificJobList(generics.ListAPIView):
    """The study's review jobs, newest first."""

    serializer_class = s.ProlificJobSerializer

    def get_queryset(self):
        return payout_jobs_of(study=participants_study(self.request, self.kwargs["pk"]))


class ProlificJobDetail(generics.GenericAPIView):
    serializer_class = s.ProlificJobSerializer

    def get(self, request: Request, pk: int, job_id: int) -> Response:
        """One review job: poll it until ``status`` is done or failed (``Retry-After`` until then)."""
        job = get_object_or_404(payout_jobs_of(study=participants_study(request, pk)), pk=job_id)
        return job_response(request, job, s.ProlificJobSerializer, request.path)


# --- bonuses ---------------------------------------------------------------------------------


class BonusList(Refusals, generics.ListAPIView):
    """The study's bonuses, newest first."""

    serializer_class = s.BonusSerializer

    def get_queryset(self):
        return bonuses_of(study=participants_study(self.request, self.kwargs["pk"]))

    @extend_schema(request=s.BonusCreateSerializer, responses={201: s.BonusSerializer})
    def post(self, request: Request, pk: int) -> Response:
        """Bonuses written down, nothing sent (the bonus form's checks: ids that took part in the
        pool's study, as last read from Prolific); set them up, then pay them."""
        study = owned_study(request, pk)
        given = typed(s.BonusCreateSerializer, request.data)
        linked(study)
        row = ProlificStudy.objects.filter(pool__study=study, pool=given["pool"]).exclude(prolific_id="").first()
        if row is None:
            raise ValidationError({"pool": ["Not a pool of this study on Prolific."]})
        form = BonusForm({"prolific_study": row.pk, "lines": "\n".join(given["lines"])}, study=study)
        cleaned = form_cleaned(form)
        bonus = services.prolific_bonus_draft(
            prolific_study=cleaned["prolific_study"], user=request.user, lines=cleaned["parsed"])
        return Response(s.BonusSerializer(bonus).data, status=status.HTTP_201_CREATED)


def bonus_of(study, bonus_id: int) -> ProlificBonus:
    return get_object_or_404(bonuses_of(study=study), pk=bonus_id)


class BonusDetail(generics.GenericAPIView):
    serializer_class = s.BonusSerializer

    def get(self, request: Request, pk: int, bonus_id: int) -> Response:
        return Response(s.BonusSerializer(bonus_of(participants_study(request, pk), bonus_id)).data)


class BonusSend(Refusals, generics.GenericAPIView):
    serializer_class = s.ProlificJobSerializer

    @extend_schema(
        operation_id="studies_prolific_bonuses_send", request=None,
        responses={202: s.ProlificJobSerializer, **REFUSED},
        parameters=[OpenApiParameter("step", OpenApiTypes.STR, OpenApiParameter.PATH,
                                     enum=tuple(payouts_start.BONUS_STEPS))],
    )
    def post(self, request: Request, pk: int, bonus_id: int, step: str) -> Response:
        """Set the bonus up on Prolific (``setup``: from a draft), or pay it (``pay``: once set up;
        sent at most once): a job."""
        study = owned_study(request, pk)
        bonus = bonus_of(study, bonus_id)
        if step not in payouts_start.BONUS_STEPS:
            raise Http404
        job = payouts_start.prolific_bonus_send_start(bonus=bonus, user=request.user, step=step)
        return job_started(request, study, job)


STUDY = "api/v1/studies/<int:pk>/prolific/"

urlpatterns = [
    path(STUDY, ProlificStudyList.as_view(), name="prolific"),
    path(f"{STUDY}launch/", ProlificLaunch.as_view(), name="prolific-launch"),
    path(f"{STUDY}submissions/", SubmissionList.as_view(), name="prolific-submissions"),
    path(f"{STUDY}submissions/<int:sub_id>/reject/", ProlificReject.as_view(), name="prolific-reject"),
    path(f"{STUDY}submissions/<int:sub_id>/return/", ProlificReturn.as_view(), name="prolific-return"),
    path(f"{STUDY}refresh/", ProlificRefresh.as_view(), name="prolific-refresh"),
    path(f"{STUDY}approve/", ProlificApprove.as_view(), name="prolific-approve"),
    path(f"{STUDY}jobs/", ProlificJobList.as_view(), name="prolific-jobs"),
    path(f"{STUDY}jobs/<int:job_id>/", ProlificJobDetail.as_view(), name="prolific-job"),
    path(f"{STUDY}bonuses/", BonusList.as_view(), name="prolific-bonuses"),
    path(f"{STUDY}bonuses/<int:bonus_id>/", BonusDetail.as_view(), name="prolific-bonus"),
    path(f"{STUDY}bonuses/<int:bonus_id>/<str:step>/", BonusSend.as_view(), name="prolific-bonus-send"),
    path(f"{STUDY}<str:verb>/", ProlificTransition.as_view(), name="prolific-transition"),
]
