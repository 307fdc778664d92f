"""Who answers: annotators, their sessions, leases on items, and their annotations."""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from studies.models import CountryPool, Item, Study, stored_name, study_files_prefix
from studies.protocol import SKIP

EXCLUDED_REASON_MAX = 500


class Annotator(models.Model):
    """One Prolific participant in one study, in one pool (chosen by their entry link, fixed)."""

    class Outcome(models.TextChoices):
        NONE = "", "In progress"
        NO_CONSENT = "no_consent", "Declined consent"
        NOT_ELIGIBLE = "not_eligible", "Not eligible"
        FAILED_MOCK = "failed_mock", "Failed the practice test"
        ALL_SKIPPED = "all_skipped", "Skipped every item"
        FAILED_CHECK = "failed_check", "Failed attention checks"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="annotators")
    pool = models.ForeignKey(CountryPool, on_delete=models.CASCADE, related_name="annotators")
    prolific_pid = models.CharField(max_length=64)
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    consented_at = models.DateTimeField(null=True, blank=True)
    eligibility = models.JSONField(default=dict, blank=True)
    eligible_at = models.DateTimeField(null=True, blank=True)
    instructions_read_at = models.DateTimeField(null=True, blank=True)
    mock_attempts = models.PositiveSmallIntegerField("practice test attempts", default=0)
    mock_passed_at = models.DateTimeField("practice test passed at", null=True, blank=True)
    # Cleared to annotate: passed the practice test, or there was none when they read the
    # instructions. Kept so that the item pages need not ask whether the study has a test, and so
    # that a test added later does not send annotators at work back to it.
    cleared_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=20, choices=Outcome.choices, default="", blank=True)
    blocked_at = models.DateTimeField(
        null=True, blank=True,
        help_text="Blocked by the researcher: refused at the entry link and on every annotator page.",
    )
    # Excluded by the researcher (quality control): their annotations are kept but withdrawn (out of
    # the quota, the analysis and the export) until they are included again. See services/exclusion.
    excluded_at = models.DateTimeField(null=True, blank=True)
    excluded_reason = models.CharField(
        max_length=EXCLUDED_REASON_MAX, blank=True, default="", help_text="Why the researcher excluded them."
    )
    excluded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "prolific_pid"], name="annotator_one_per_study"),
            # An exclusion always says why.
            models.CheckConstraint(
                condition=Q(excluded_at__isnull=True) | ~Q(excluded_reason=""), name="annotator_excluded_has_reason"
            ),
        ]

    def __str__(self):
        return self.pseudonym

    @property
    def pseudonym(self) -> str:
        return pseudonym_for(self.public_id)


def pseudonym_for(public_id: uuid.UUID) -> str:
    """The annotator's id in exports: random, stable across exports and key rotations, and not
    derivable from (or to) the Prolific id."""
    return f"a-{public_id.hex[:12]}"


class Session(models.Model):
    """One sitting: one Prolific submission (SESSION_ID), a batch of items, one completion code."""

    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="sessions")
    prolific_session_id = models.CharField(max_length=64)
    prolific_study_id = models.CharField(max_length=64)
    items_target = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    released_at = models.DateTimeField(
        null=True, blank=True,
        help_text="Ended from outside (the submission returned, timed out or rejected on Prolific): its lease was "
        "given back and no new item is leased.",
    )
    # The browser the session is bound to (``annotation.browser``): only the hashes are stored.
    browser_hash = models.CharField(
        max_length=64, blank=True, default="",
        help_text="SHA-256 of the secret of the browser the session is bound to (empty: not bound yet).",
    )
    resume_hash = models.CharField(
        max_length=64, blank=True, default="", help_text="The resume code, hashed (HMAC under the site's key).",
    )
    resume_failures = models.PositiveSmallIntegerField(default=0, help_text="Wrong resume codes since the last lock.")
    resume_locked_until = models.DateTimeField(null=True, blank=True)
    withdrawn_at = models.DateTimeField(
        null=True, blank=True,
        help_text="Its annotations are withdrawn (a returned submission the study does not count); the annotator's "
        "exclusion withdraws them too, and including the annotator again leaves these withdrawn.",
    )
    # Quality control (``services.checks``): where the session's attention checks and gold items go,
    # decided once when it starts, so that a reload or a second tab sees the same items in the same places.
    schedule = models.JSONField(
        default=list, blank=True,
        help_text='The check and gold items of the session: [{"position": 3, "kind": "attention", "item": 12}, …] '
        "(positions 1-based, counted with the ordinary items; items_target counts them too).",
    )
    check_warned_at = models.DateTimeField(
        null=True, blank=True, help_text="When the annotator was warned after a failed attention check (once).",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["annotator", "prolific_session_id"], name="session_one_per_submission")
        ]

    def __str__(self):
        return f"{self.annotator} · {self.prolific_session_id}"


class Assignment(models.Model):
    """A lease on one slot of an (item, pool) quota, held by one annotator in one session."""

    class Status(models.TextChoices):
        LEASED = "leased", "Leased"
        SUBMITTED = "submitted", "Submitted"
        EXPIRED = "expired", "Expired"

    # session and item have no index of their own: the unique (session, position) and (item,
    # annotator) serve them, and an index less is a write less on every lease.
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="assignments")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    pool = models.ForeignKey(CountryPool, on_delete=models.CASCADE, related_name="assignments")
    position = models.PositiveSmallIntegerField(help_text="1-based place in the session.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LEASED)
    leased_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    draft = models.JSONField(default=dict, blank=True, help_text="What was typed so far (restored on reload).")
    session_total = models.PositiveSmallIntegerField(
        null=True, blank=True,
        help_text="The session's size as counted when this item was leased: its target, or fewer when fewer items "
        "were open to the annotator (the page's \"3 of 4\"; empty: the target).",
    )

    class Meta:
        constraints = [
            # Distinct annotators per item: one annotator never gets the same item twice.
            models.UniqueConstraint(fields=["item", "annotator"], name="assignment_distinct_annotators"),
            models.UniqueConstraint(fields=["session", "position"], name="assignment_position_unique"),
            # One item at a time: two tabs of one session cannot hold two leases.
            models.UniqueConstraint(
                fields=["session"], condition=Q(status="leased"), name="assignment_one_lease_per_session"
            ),
        ]
        indexes = [models.Index(fields=["status", "expires_at"])]

    def __str__(self):
        return f"{self.item} → {self.annotator} ({self.status})"


class AnnotationQuerySet(models.QuerySet):
    def counted(self) -> "AnnotationQuerySet":
        """The annotations that count (``COUNTED``): what the analysis reads and the exports ship."""
        return self.filter(COUNTED)

    def counted_or_excluded(self) -> "AnnotationQuerySet":
        """The annotations that count, and those left out only because their annotator is excluded
        (``COUNTED_OR_EXCLUDED``): what quality control reads, so an excluded annotator keeps their
        figures and the effect of leaving them out shows."""
        return self.filter(COUNTED_OR_EXCLUDED)

    def filling_quota(self) -> "AnnotationQuerySet":
        """The annotations that fill an item's quota: not withdrawn, not surplus (one submitted
        after its lease expired to an item already full). A flagged one still fills it (the flag
        reopens a slot of its own, ``ItemQuota.reopened``)."""
        return self.filter(surplus=False, withdrawn=False)


class Annotation(models.Model):
    """A submitted answer. One per assignment, so a double submit stores one annotation."""

    assignment = models.OneToOneField(Assignment, on_delete=models.RESTRICT, related_name="annotation")
    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="annotations")
    item = models.ForeignKey(Item, on_delete=models.RESTRICT, related_name="annotations")
    pool = models.ForeignKey(CountryPool, on_delete=models.RESTRICT, related_name="annotations")
    annotator = models.ForeignKey(Annotator, on_delete=models.RESTRICT, related_name="annotations")
    answers = models.JSONField()
    skipped = models.BooleanField(
        default=False, help_text="The annotator skipped the item (the answers hold only the reason)."
    )
    protocol_version = models.PositiveIntegerField()
    surplus = models.BooleanField(
        default=False, help_text="Submitted after the lease expired and the item was already full."
    )
    withdrawn = models.BooleanField(
        default=False,
        help_text="The participant withdrew (returned their submission) and the study does not count a withdrawn "
        "participant's answers: kept, but left out of the quota, the analysis and the export.",
    )
    time_spent_ms = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    submitted_at = models.DateTimeField(auto_now_add=True)
    effort = models.JSONField(
        null=True, blank=True,
        help_text="Honest-effort signals the page counted while the item was shown (characters pasted and typed "
        "per text answer, times the page was left, seconds hidden; never the text itself): for review only. "
        "Null: none were sent, or they were malformed (annotation.effort).",
    )

    objects = AnnotationQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["study", "id"]),
            # The study page's progress per hour of the last 48 hours: a range scan per pool.
            models.Index(fields=["pool", "submitted_at"], name="annotation_pool_submitted"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(time_spent_ms__gte=0), name="annotation_time_nonneg"),
            # ``skipped`` mirrors the answers, so counts and reads need not look inside the JSON.
            models.CheckConstraint(
                condition=Q(skipped=True, answers__has_key=SKIP) | (Q(skipped=False) & ~Q(answers__has_key=SKIP)),
                name="annotation_skipped_mirrors_answers",
            ),
        ]

    def __str__(self):
        return f"annotation {self.pk} of {self.item}"


def upload_path(upload, filename):
    return stored_name(study_files_prefix(upload.study_id, "uploads"), upload.sha256, upload.suffix)


class CheckAnswer(models.Model):
    """An answer to an attention check or a gold item: kept apart from the annotations, so it never
    enters a quota, the agreement or an export; one per assignment, so a double submit stores one."""

    assignment = models.OneToOneField(Assignment, on_delete=models.CASCADE, related_name="check_answer")
    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="check_answers")
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="check_answers", db_index=False)
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="check_answers")
    kind = models.CharField(max_length=10)
    answers = models.JSONField(default=dict)
    skipped = models.BooleanField(default=False)
    passed = models.BooleanField()
    compared = models.JSONField(default=list, help_text="The fields compared, by key.")
    matched = models.JSONField(default=list, help_text="The fields that matched, by key.")
    time_spent_ms = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["session", "kind", "passed"])]

    def __str__(self):
        return f"{self.kind} {self.item_id} · {self.annotator} ({'passed' if self.passed else 'failed'})"


class Upload(models.Model):
    """An image an annotator supplied for an assignment (GlobalRG), verified with Pillow."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="+")
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="uploads")
    token = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    file = models.FileField(upload_to=upload_path, max_length=300)
    suffix = models.CharField(max_length=8)
    original_name = models.CharField(max_length=255)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"upload {self.token} ({self.width}×{self.height})"


class MockAttempt(models.Model):
    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="mock_attempt_rows")
    answers = models.JSONField()
    correct = models.PositiveSmallIntegerField()
    total = models.PositiveSmallIntegerField()
    passed = models.BooleanField()
    created_at = models.DateTimeField(auto_now_add=True)


    class Meta:
        verbose_name = "practice test attempt"

    def __str__(self):
        verdict = "passed" if self.passed else "failed"
        return f"practice test of {self.annotator}: {self.correct}/{self.total}, {verdict}"


# --- quality check (RAVENEA's meta quality checker) -------------------------------------------

DEFAULT_REVIEW_TARGET_PERCENT = 10


class Checker(models.Model):
    """A local meta quality checker: a user account the study's owner designates for one country
    pool. A checker reviews that pool's annotations and sees nothing else of the study."""

    pool = models.ForeignKey(CountryPool, on_delete=models.CASCADE, related_name="checkers")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="checker_roles")
    prolific_pid = models.CharField(
        "Prolific id", max_length=64, blank=True,
        help_text="The checker's own Prolific id, if they also annotate this study: their annotations are never "
        "given to them to review.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["pool", "user"], name="checker_one_per_pool_user")]

    def __str__(self):
        return f"{self.user} checks {self.pool}"


class ReviewTarget(models.Model):
    """The share of a pool's annotations its checkers aim to review (10% without a row)."""

    pool = models.OneToOneField(CountryPool, on_delete=models.CASCADE, related_name="review_target")
    percent = models.PositiveSmallIntegerField(default=DEFAULT_REVIEW_TARGET_PERCENT)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(percent__gte=1, percent__lte=100), name="review_target_percent_range")
        ]

    def __str__(self):
        return f"review {self.percent}% of {self.pool}"


class Review(models.Model):
    """A checker's verdict on one annotation: accepted, or flagged for re-annotation.

    One per annotation (a database constraint), so a double submit or two checkers on the same
    annotation store one review. ``labels`` holds the checker's own answers to the reviewed fields
    (those with a level of measurement), shaped like ``Annotation.answers`` for those keys.
    A flagged annotation stays stored; analysis and export leave it out
    (``Annotation.objects.exclude(review__outcome="flagged")``).
    """

    class Outcome(models.TextChoices):
        ACCEPTED = "accepted", "Accepted"
        FLAGGED = "flagged", "Flagged for re-annotation"

    annotation = models.OneToOneField(Annotation, on_delete=models.CASCADE, related_name="review")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="reviews")
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    labels = models.JSONField(default=dict, blank=True)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(outcome__in=["accepted", "flagged"]), name="review_outcome_known"),
        ]

    def __str__(self):
        return f"review of annotation {self.annotation_id}: {self.outcome}"


# The annotations that count in the analysis, the exports and the API (``AnnotationQuerySet.counted``):
# not flagged by a checker, not withdrawn (a returned submission the study does not count, or an
# excluded annotator's). A ``Q`` as well, for the aggregates that count them beside others
# (``Count(filter=COUNTED)``); ``annotation.bulk.COUNTED_SQL`` is its raw SQL.
COUNTED = ~Q(review__outcome=Review.Outcome.FLAGGED) & Q(withdrawn=False)
# Those, and the ones withdrawn only by their annotator's exclusion (their session was not withdrawn):
# ``annotation.bulk.COUNTED_OR_EXCLUDED_SQL``.
COUNTED_OR_EXCLUDED = ~Q(review__outcome=Review.Outcome.FLAGGED) & (
    Q(withdrawn=False) | Q(annotator__excluded_at__isnull=False, assignment__session__withdrawn_at__isnull=True)
)
