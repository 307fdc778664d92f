"""Reads of the review page: a page of a study's Prolific submissions joined to what the platform
knows of each participant (the session, items submitted, time spent, practice attempts, outcome,
completion code, the quality check's flags), the latest review jobs and bonuses; and who may see a
study's participants (``may_see_participants``, ``participants_study_for_user``), the one rule of the
pages and the API."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.core.paginator import Page, Paginator
from django.db.models import Count, Q, QuerySet, Sum

from annotation.models import Annotation, Annotator, CheckAnswer, Review, Session
from studies.models import CheckKind, CountryPool, Study
from studies.selectors import study_for_user

from .models import ProlificAction, ProlificBonus, ProlificJob, ProlificSubmission
from .rules import money

PAGE_SIZE = 50
# The review's calls to Prolific: their targets and errors name a participant's submission, so the
# study's Prolific page lists them only to whoever may see the participants.
ACTIONS_ON_PARTICIPANTS = tuple(
    ProlificAction.Kind[name] for name in ("APPROVE", "BULK_APPROVE", "REJECT", "RETURN", "BONUS_SETUP", "BONUS_PAY",
                                             "SCREEN_OUT", "MESSAGE", "MESSAGE_BULK", "TEST_STUDY")
)
PARTICIPANTS_OWNER_ONLY = (
    "Only the study's owner sees its Prolific participants: their Prolific ids beside the annotators' "
    "pseudonyms would undo the pseudonyms of the exports."
)


def may_see_participants(study: Study) -> bool:
    """Whether the user who looked ``study`` up (``study_for_user``) may see its Prolific participants:
    their Prolific ids (PROLIFIC_PID, SESSION_ID), which sit beside the annotators' pseudonyms on the
    review, reject, return and bonus pages, in a review job's outcome, among the entries not verified
    and the review's calls to Prolific, and in the API's ``/prolific/`` resources. The owner's only (a
    superuser counts as the owner): a member of any role who saw them could undo the pseudonyms of the
    exports."""
    return study.access.is_owner


def participants_study_for_user(user: AbstractBaseUser, pk: int) -> Study:
    """One study whose Prolific participants the user may see, for a page or an API resource that
    shows them: 404 for anyone who does not see the study, 403 for a member (``may_see_participants``)."""
    study = study_for_user(user, pk)
    if not may_see_participants(study):
        raise PermissionDenied(PARTICIPANTS_OWNER_ONLY)
    return study


@dataclass(frozen=True)
class ReviewRow:
    """One submission with what the platform knows of its participant."""

    submission: ProlificSubmission
    session: Session | None
    annotator: Annotator | None
    items_done: int
    time_spent_ms: int
    reviewed: int  # the participant's annotations a checker reviewed
    flagged: int  # of which flagged for re-annotation
    code_meaning: str  # what the completion code says: "completed", "failed the practice test"…

    @property
    def time_spent_text(self) -> str:
        seconds = self.time_spent_ms // 1000
        return f"{seconds // 60} min {seconds % 60:02d} s"

    @property
    def can_approve(self) -> bool:
        return self.submission.status == ProlificSubmission.Status.AWAITING_REVIEW

    can_reject = can_approve

    @property
    def can_request_return(self) -> bool:
        return (
            self.submission.status in {ProlificSubmission.Status.ACTIVE, ProlificSubmission.Status.AWAITING_REVIEW}
            and self.submission.return_requested_at is None
        )


def payout_submissions(*, study: Study, pool: CountryPool | None = None, status: str = "") -> QuerySet:
    """The study's submissions on Prolific (the caller scoped the study), filtered, newest first."""
    rows = ProlificSubmission.objects.filter(prolific_study__pool__study=study)
    if pool is not None:
        rows = rows.filter(prolific_study__pool=pool)
    if status:
        rows = rows.filter(status=status)
    return rows.select_related("prolific_study__pool", "session__annotator").order_by(
        "-completed_at", "-started_at", "-pk"
    )


def payouts_page(*, study: Study, pool: CountryPool | None = None, status: str = "", page: int | str = 1) -> tuple[
    Page, list[ReviewRow]
]:
    """One page of the submissions (never more than ``PAGE_SIZE``) and their rows: six queries
    whatever the page's size (count, rows, sessions, annotators, annotations, reviews)."""
    paginator = Paginator(payout_submissions(study=study, pool=pool, status=status), PAGE_SIZE)
    current = paginator.get_page(page)
    subs: list[ProlificSubmission] = list(current.object_list)
    # the session each opened: linked, else found by SESSION_ID in this study
    sessions = {s.session.prolific_session_id: s.session for s in subs if s.session is not None}
    missing = [s.prolific_id for s in subs if s.session is None]
    if missing:
        for session in Session.objects.filter(annotator__study=study, prolific_session_id__in=missing).select_related(
            "annotator"
        ):
            sessions[session.prolific_session_id] = session
    # the annotator: the session's, else found by PROLIFIC_PID (one who never got a session)
    annotators = {s.annotator.prolific_pid: s.annotator for s in sessions.values()}
    unknown = [s.participant_id for s in subs if s.participant_id not in annotators]
    if unknown:
        for annotator in Annotator.objects.filter(study=study, prolific_pid__in=unknown):
            annotators[annotator.prolific_pid] = annotator
    work = {
        row["assignment__session"]: row
        for row in Annotation.objects.filter(assignment__session__in=[s.pk for s in sessions.values()])
        .values("assignment__session").annotate(items=Count("pk"), ms=Sum("time_spent_ms"))
    }
    checks = {
        row["annotation__annotator"]: row
        for row in Review.objects.filter(annotation__annotator__in=[a.pk for a in annotators.values()])
        .values("annotation__annotator")
        .annotate(reviewed=Count("pk"), flagged=Count("pk", filter=Q(outcome=Review.Outcome.FLAGGED)))
    }
    codes = code_meanings(study)
    rows = []
    for sub in subs:
        session = sessions.get(sub.prolific_id)
        annotator = session.annotator if session is not None else annotators.get(sub.participant_id)
        done = work.get(session.pk, {}) if session is not None else {}
        checked = checks.get(annotator.pk, {}) if annotator is not None else {}
        rows.append(ReviewRow(
            submission=sub,
            session=session,
            annotator=annotator,
            items_done=int(done.get("items") or 0),
            time_spent_ms=int(done.get("ms") or 0),
            reviewed=int(checked.get("reviewed") or 0),
            flagged=int(checked.get("flagged") or 0),
            code_meaning=codes.get(sub.study_code, "unknown code" if sub.study_code else ""),
        ))
    return current, rows


def code_meanings(study: Study) -> dict[str, str]:
    """The study's completion codes, by what each says."""
    return {
        study.code_completed: "completed",
        study.code_failed_mock: "failed the practice test",
        study.code_not_eligible: "not eligible",
        study.code_no_consent: "no consent",
        study.code_all_skipped: "skipped every item",
        study.code_failed_check: "failed attention checks",
    }


def payout_jobs_of(*, study: Study) -> QuerySet[ProlificJob]:
    """The study's review jobs, newest first, with their pool and how many submissions each took.
    The order is said here: a query with an aggregate (the count) ignores ``Meta.ordering``, and the
    page's "latest ten" were then any ten."""
    return (
        ProlificJob.objects.filter(study=study)
        .select_related("prolific_study__pool", "user", "bonus")
        .annotate(n_submissions=Count("submissions"))
        .order_by("-created_at", "-id")
    )


def bonuses_of(*, study: Study) -> QuerySet[ProlificBonus]:
    """The study's bonuses, newest first."""
    return (
        ProlificBonus.objects.filter(prolific_study__pool__study=study)
        .select_related("prolific_study__pool")
        .order_by("-created_at", "-id")
    )


@dataclass(frozen=True)
class BonusPreview:
    """What a bonus costs: our sum before set-up; Prolific's fees, VAT and total after."""

    bonus: ProlificBonus

    def _money(self, minor: int | None) -> str:
        return money(minor, self.bonus.currency) if minor is not None else "known once set up on Prolific"

    @property
    def amount_text(self) -> str:
        return self._money(self.bonus.amount)

    @property
    def fees_text(self) -> str:
        return self._money(self.bonus.fees)

    @property
    def vat_text(self) -> str:
        return self._money(self.bonus.vat)

    @property
    def total_text(self) -> str:
        return self._money(self.bonus.total_amount)

    @property
    def lines(self) -> list[tuple[str, str]]:
        return [(str(line["who"]), money(int(line["amount"]), self.bonus.currency)) for line in self.bonus.lines]


@dataclass(frozen=True)
class CheckFailure:
    """One attention check a participant failed: where it came in their session, its question and
    the answer it asked for, and what they gave."""

    position: int
    question: str
    asked: str
    given: str


def failed_checks(*, study: Study, session: Session | None) -> list[CheckFailure]:
    """The attention checks the session failed, in the order they came (one query)."""
    if session is None:
        return []
    spec = study.spec
    out = []
    answers = CheckAnswer.objects.filter(session=session, kind=CheckKind.ATTENTION, passed=False).select_related(
        "assignment", "item").order_by("assignment__position")
    for answer in answers:
        expected = answer.item.expected or {}
        for key, value in expected.items():
            f = next((f for f in spec.fields if f.key == key), None)
            if f is None:
                continue
            given = answer.answers.get(key) if isinstance(answer.answers, dict) else None
            out.append(CheckFailure(
                position=answer.assignment.position,
                question=f.label,
                asked=f.kind.show_answer(f, value).text,
                given="skipped" if answer.skipped else (f.kind.show_answer(f, given).text if given is not None
                                                       else "no answer"),
            ))
    return out


def failed_check_rejection(*, study: Study, session: Session | None) -> dict[str, str] | None:
    """A rejection the researcher may send for a session ended by failed attention checks: Prolific's
    FAILED_CHECK category and a message (over 100 characters) that names each failed check. None
    when the session failed no check. Never sent by itself: the reject page shows it pre-filled."""
    failures = failed_checks(study=study, session=session)
    if not failures:
        return None
    listed = "; ".join(
        f"item {f.position} of your session asked, in its question “{f.question}”, for the answer “{f.asked}”, "
        f"and the answer given was “{f.given}”" for f in failures
    )
    n = len(failures)
    message = (
        f"Thank you for taking part. This study includes attention checks: questions that say in their own words "
        f"which answer to give. Your submission did not follow {n} of them ({listed}). As the study's information "
        f"and Prolific's policy on fair attention checks allow, the submission is rejected for failed attention "
        f"checks."
    )
    return {"category": "FAILED_CHECK", "message": message}
