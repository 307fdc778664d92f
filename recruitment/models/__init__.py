"""Where annotators come from: a researcher's Prolific token, the Prolific study of each country
pool, and the log of every call that changed something on Prolific; the rounds' participant groups
and block list in ``rounds``."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from jobs.models import Job
from studies.models import CountryPool, Study

from ..rules import money
from .rounds import BlockedParticipant as BlockedParticipant
from .rounds import ParticipantGroup as ParticipantGroup
from .rounds import ParticipantGroupMember as ParticipantGroupMember


class ProlificToken(models.Model):
    """A researcher's own Prolific API token, Fernet-encrypted (``recruitment.tokens``). The
    plaintext is never stored, shown, logged or exported; it is read only to call Prolific."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="prolific_token")
    ciphertext = models.TextField(editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"Prolific token of {self.user}"

    def __repr__(self):
        return f"<ProlificToken of user {self.user_id}>"


class ProlificStudy(models.Model):
    """The Prolific study that recruits one country pool.

    The row (with ``reference``, sent to Prolific as the study's ``internal_name``) is written before
    Prolific is asked to create anything, and ``prolific_id`` right after it answers; a launch that
    finds a row without an id looks for its study on Prolific by ``reference`` before creating one,
    so a retry after a crash or a time-out never creates a second study. ``status`` mirrors
    Prolific's and is written only from Prolific's answers.
    """

    class Status(models.TextChoices):
        NOT_CREATED = "", "Not created on Prolific"
        UNPUBLISHED = "UNPUBLISHED", "Draft"
        PUBLISHING = "PUBLISHING", "Publishing"
        SCHEDULED = "SCHEDULED", "Scheduled"
        ACTIVE = "ACTIVE", "Active"
        PAUSED = "PAUSED", "Paused"
        AWAITING_REVIEW = "AWAITING REVIEW", "Awaiting review"
        COMPLETED = "COMPLETED", "Completed"

    NEVER_PUBLISHED = (Status.NOT_CREATED, Status.UNPUBLISHED)  # no participant saw it: a draft at most

    pool = models.OneToOneField(CountryPool, on_delete=models.CASCADE, related_name="prolific_study")
    reference = models.CharField(max_length=100, unique=True, editable=False)
    prolific_id = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, blank=True, default="")
    places = models.PositiveIntegerField(help_text="Prolific's total_available_places.")
    reward = models.PositiveIntegerField(help_text="Per participant, in minor units (pence, cents).")
    currency = models.CharField(max_length=3, blank=True)
    estimated_minutes = models.PositiveSmallIntegerField()
    maximum_allowed_minutes = models.PositiveSmallIntegerField(null=True, blank=True)
    devices = models.JSONField(default=list, blank=True, help_text='e.g. ["desktop"]; empty: every device.')
    filter_picks = models.JSONField(
        default=list, blank=True, help_text="The researcher's filters by title, with the labels chosen."
    )
    filters = models.JSONField(default=list, blank=True, help_text="The filters sent, resolved to Prolific's ids.")
    total_cost = models.PositiveIntegerField(null=True, blank=True, help_text="As Prolific reports it, minor units.")
    paused_when_full = models.BooleanField(
        default=False, help_text="Paused by the platform because the pool was full: resumed when slots reopen."
    )
    creating_until = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="A launch holds the right to create until then."
    )
    last_error = models.TextField(blank=True)
    # issue 28, part 2: paid screen-outs and the secured entry URL, chosen at launch
    screen_out_reward = models.PositiveIntegerField(
        null=True, blank=True,
        help_text="Paid screen-outs: the fixed reward (minor units) of a participant screened out by an eligibility "
        "answer; empty: they are asked to return instead.",
    )
    secured_entry = models.BooleanField(
        default=False, help_text="The entry link carries Prolific's signed token (secured study URL), checked at entry."
    )
    test_participant_id = models.CharField(
        max_length=64, blank=True, help_text="The researcher's Prolific test participant, when one was made."
    )
    test_study_id = models.CharField(
        max_length=64, blank=True,
        help_text="Prolific's test copy of the draft, for test participants: its entries are walked in the path "
        "preview, never stored.",
    )
    workspace_id = models.CharField(
        max_length=64, blank=True, editable=False,
        help_text="The Prolific workspace holding the study: only its webhook secret may act on it.",
    )
    event_at = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="The signed time of the last webhook event applied."
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    synced_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "Prolific studies"
        constraints = [
            models.UniqueConstraint(
                fields=["prolific_id"], condition=~Q(prolific_id=""), name="prolific_study_id_unique"
            ),
            models.CheckConstraint(condition=Q(estimated_minutes__gte=1), name="prolific_study_minutes_positive"),
            models.CheckConstraint(condition=Q(reward__gte=1), name="prolific_study_reward_positive"),
        ]

    def __str__(self):
        return f"{self.pool} on Prolific ({self.prolific_id or 'not created'})"

    @property
    def created(self) -> bool:
        return bool(self.prolific_id)

    @property
    def reward_text(self) -> str:
        """The reward as money: "£1.50"."""
        return money(self.reward, self.currency or "GBP")


class ProlificAction(models.Model):
    """One call that changed (or tried to change) something on Prolific: who, when, what, and
    Prolific's answer. Written after Prolific answered (or failed to)."""

    class Kind(models.TextChoices):
        CREATE = "create", "Create the study"
        RECONCILE = "reconcile", "Find the study created earlier"
        PUBLISH = "publish", "Publish"
        PAUSE = "pause", "Pause"
        RESUME = "resume", "Resume"
        STOP = "stop", "Stop"
        PLACES = "places", "Change places"
        SUBMISSIONS = "submissions", "Read the submissions"
        APPROVE = "approve", "Approve a submission"
        BULK_APPROVE = "bulk_approve", "Approve submissions (bulk)"
        REJECT = "reject", "Reject a submission"
        RETURN = "return", "Request a return"
        BONUS_SETUP = "bonus_setup", "Set up bonuses"
        BONUS_PAY = "bonus_pay", "Pay bonuses"
        # issue 28, part 2
        SCREEN_OUT = "screen_out", "Screen out (paid)"
        MESSAGE = "message", "Message a participant"
        MESSAGE_BULK = "message_bulk", "Message a pool"
        TEST_STUDY = "test_study", "Test as a participant"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="prolific_actions")
    prolific_study = models.ForeignKey(
        ProlificStudy, on_delete=models.SET_NULL, null=True, blank=True, related_name="actions"
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    target = models.CharField(max_length=64, blank=True, help_text="The Prolific id acted on.")
    ok = models.BooleanField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    answer = models.JSONField(default=dict, blank=True, help_text="Prolific's answer (its error, when refused).")
    error = models.TextField(blank=True)
    job = models.ForeignKey(
        "ProlificJob", on_delete=models.SET_NULL, null=True, blank=True, related_name="calls",
        help_text="The review job that made the call, if any.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["study", "created_at"])]

    def __str__(self):
        return f"{self.get_kind_display()} {self.target} ({'ok' if self.ok else 'failed'})"


class ProlificSubmission(models.Model):
    """One participant's submission to a pool's Prolific study, as Prolific last reported it (its
    list, a webhook or an entry check), tied to the annotator session it opened, if any.

    ``status`` is written only from Prolific's answers. The webhooks and the periodic sync keep it;
    the review page reads it.
    """

    class Status(models.TextChoices):
        RESERVED = "RESERVED", "Reserved"
        ACTIVE = "ACTIVE", "Active"
        AWAITING_REVIEW = "AWAITING REVIEW", "Awaiting review"
        APPROVED = "APPROVED", "Approved"
        PARTIALLY_APPROVED = "PARTIALLY APPROVED", "Partially approved"
        REJECTED = "REJECTED", "Rejected"
        RETURNED = "RETURNED", "Returned"
        TIMED_OUT = "TIMED-OUT", "Timed out"
        SCREENED_OUT = "SCREENED OUT", "Screened out"
        PROCESSING = "PROCESSING", "Processing"
        UNKNOWN = "UNKNOWN", "Unknown"

    prolific_study = models.ForeignKey(ProlificStudy, on_delete=models.CASCADE, related_name="submissions")
    prolific_id = models.CharField(max_length=64, unique=True, help_text="Prolific's SESSION_ID.")
    participant_id = models.CharField(max_length=64, help_text="Prolific's PROLIFIC_PID.")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.UNKNOWN)
    study_code = models.CharField(max_length=64, blank=True, help_text="The completion code it was submitted with.")
    return_requested_at = models.DateTimeField(
        null=True, blank=True, help_text="When a return was requested, as Prolific reports it."
    )
    started_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    session = models.ForeignKey(
        "annotation.Session", on_delete=models.SET_NULL, null=True, blank=True, related_name="prolific_submissions"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Check(models.TextChoices):
        NONE = "", "Not checked (known from Prolific's list or a webhook)"
        VERIFIED = "verified", "Verified with Prolific at entry"
        PENDING = "pending", "Let in unverified: Prolific could not be asked; checked again in the background"
        FAILED = "failed", "Let in unverified, then found not to match"

    entry_check = models.CharField(max_length=10, choices=Check.choices, blank=True, default="")
    check_note = models.CharField(max_length=500, blank=True, help_text="Why it is unverified, or what did not match.")
    check_attempts = models.PositiveSmallIntegerField(default=0)
    checked_at = models.DateTimeField(null=True, blank=True)
    released_at = models.DateTimeField(
        null=True, blank=True, help_text="When its session's lease was given back (returned, timed out, rejected)."
    )
    event_at = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="The signed time of the last webhook event applied."
    )

    class Meta:
        indexes = [
            models.Index(fields=["prolific_study", "status"]),
            models.Index(
                fields=["entry_check"], condition=Q(entry_check="pending"), name="prolific_submission_pending"
            ),
        ]

    def __str__(self):
        return f"{self.prolific_id} ({self.status})"


class ProlificBonus(models.Model):
    """Bonuses to participants of one pool's study: the lines asked for, then Prolific's set-up
    (its id, fees, VAT, total) and payment.

    Prolific's pay call is not idempotent (a repeat pays again), so the state moves
    ``set_up`` → ``paying`` by a conditional UPDATE, committed before the pay call is sent: it is
    sent at most once per bonus. A pay that gets no clear answer (a time-out, a 5xx) leaves the
    state ``uncertain``, never sent again by the platform; the researcher checks on Prolific.
    A set-up that gets no answer may have created a bonus on Prolific, which costs nothing until
    paid: the next set-up creates another, and only the one whose id is recorded is ever paid.
    """

    class State(models.TextChoices):
        DRAFT = "draft", "Not set up yet"
        SETTING_UP = "setting_up", "Being set up"
        SET_UP = "set_up", "Set up, not paid"
        PAYING = "paying", "Payment being sent"
        PAID = "paid", "Paid (Prolific pays within minutes)"
        UNCERTAIN = "uncertain", "Payment not confirmed: check on Prolific"

    prolific_study = models.ForeignKey(ProlificStudy, on_delete=models.CASCADE, related_name="bonuses")
    lines = models.JSONField(help_text='[{"who": submission or participant id, "amount": minor units}, …]')
    amount = models.PositiveIntegerField(help_text="What the participants get, minor units (our sum).")
    currency = models.CharField(max_length=3, blank=True)
    state = models.CharField(max_length=12, choices=State.choices, default=State.DRAFT)
    prolific_id = models.CharField(max_length=64, blank=True, help_text="Prolific's bulk bonus payment id.")
    fees = models.PositiveIntegerField(null=True, blank=True, help_text="Prolific's fees, minor units.")
    vat = models.PositiveIntegerField(null=True, blank=True)
    total_amount = models.PositiveIntegerField(null=True, blank=True, help_text="Prolific's total, minor units.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    paid_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["prolific_id"], condition=~Q(prolific_id=""), name="prolific_bonus_id_unique"
            ),
            models.CheckConstraint(condition=Q(amount__gte=1), name="prolific_bonus_amount_positive"),
        ]

    def __str__(self):
        return f"bonus {self.pk} of {self.prolific_study} ({self.state})"


class ProlificJob(Job):
    """A researcher's payout action (approve, reject, request a return, refresh, set up or pay
    bonuses), run as a job (``jobs.lifecycle``): what was asked, its status and its outcome. The
    calls it made are ProlificAction rows (``calls``). Status ``waiting``: Prolific was busy, it is
    tried again when Prolific's wait ends."""

    task = "recruitment.tasks.prolific_job_task"
    max_attempts = 4  # queued again after a 429, a 5xx, no answer or a lost worker (repeatable kinds only)
    # The kinds a repeat leaves harmless: reads, submission transitions and bulk approval are
    # idempotent on Prolific. A bonus set-up or payment is never sent twice by the platform.
    REPEATABLE = (ProlificAction.Kind.SUBMISSIONS, ProlificAction.Kind.APPROVE, ProlificAction.Kind.BULK_APPROVE,
                  ProlificAction.Kind.REJECT, ProlificAction.Kind.RETURN,
                  # a screen-out reads the submission first and is sent only while it is active
                  ProlificAction.Kind.SCREEN_OUT)
    LOST_WHILE_PAYING = (
        "The worker running it stopped (lost at {lost}) while paying. Prolific may or may not have paid: the "
        "platform will not send this payment again. Check the participants' bonuses on Prolific before paying "
        "them by other means."
    )

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="prolific_jobs")
    prolific_study = models.ForeignKey(ProlificStudy, on_delete=models.CASCADE, related_name="jobs")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    kind = models.CharField(max_length=20, choices=ProlificAction.Kind.choices)
    submissions = models.ManyToManyField(ProlificSubmission, blank=True, related_name="jobs")
    bonus = models.ForeignKey(ProlificBonus, on_delete=models.CASCADE, null=True, blank=True, related_name="jobs")
    params = models.JSONField(
        default=dict, blank=True, help_text="The rejection's category and message, a return's reasons."
    )
    outcome = models.TextField(blank=True, help_text="What happened, fit to show the researcher.")

    class Meta(Job.Meta):
        indexes = [models.Index(fields=["study", "created_at"])]

    def __str__(self):
        return f"{self.get_kind_display()} ({self.status})"

    @classmethod
    def repeatable(cls) -> Q:
        return Q(kind__in=cls.REPEATABLE)

    def when_lost(self, lost: str) -> str | None:
        """A bonus set-up goes back to a draft (unpaid and unrecorded, it costs nothing); a payment
        to "uncertain", never sent again, and the job says so."""
        if self.bonus_id is None:
            return None
        State = ProlificBonus.State
        bonus = ProlificBonus.objects.filter(pk=self.bonus_id)
        if self.kind == ProlificAction.Kind.BONUS_SETUP:
            bonus.filter(state=State.SETTING_UP).update(state=State.DRAFT)
        elif self.kind == ProlificAction.Kind.BONUS_PAY:
            if bonus.filter(state=State.PAYING).update(state=State.UNCERTAIN):
                return self.LOST_WHILE_PAYING.format(lost=lost)
        return None


class RecruitmentPolicy(models.Model):
    """A study's choices about its Prolific participants (no row: the defaults).

    ``count_returned``: whether the annotations of a participant who returned their submission
    count (in the quota, the analysis and the export). Off by default: Prolific treats a return as
    the participant withdrawing, unpaid. Per study, not per pool, because it is a rule of the
    study's data; changing it applies to the study's returned participants already seen."""

    study = models.OneToOneField(Study, on_delete=models.CASCADE, related_name="recruitment_policy")
    count_returned = models.BooleanField(
        "Count the annotations of participants who returned", default=False,
        help_text="Off: a returned participant's annotations are kept but left out of the quota (their slots "
        "reopen), the analysis and the export.",
    )
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "recruitment policies"

    def __str__(self):
        return f"recruitment policy of {self.study}"


class ProlificWebhook(models.Model):
    """A workspace's webhook set-up: its signing secret (Fernet-encrypted like tokens, used only to
    verify deliveries) and the subscriptions made for it."""

    workspace_id = models.CharField(max_length=64, unique=True)
    secret_ciphertext = models.TextField(editable=False)
    target_url = models.URLField(max_length=500)
    subscriptions = models.JSONField(default=list, blank=True, help_text="[{id, event_type, is_enabled}]")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"Prolific webhooks of workspace {self.workspace_id}"

    def __repr__(self):
        return f"<ProlificWebhook {self.workspace_id}>"


class ProlificEvent(models.Model):
    """A webhook delivery applied once. Its ``X-Event-ID`` is unique (Prolific keeps it across
    retries) and so is ``digest``, a hash of what the signature covers (timestamp and body): a
    captured delivery sent again under a new event id is recognised too, and does nothing."""

    event_id = models.CharField(max_length=128, unique=True)
    digest = models.CharField(max_length=71, unique=True, editable=False)
    workspace_id = models.CharField(max_length=64, blank=True, help_text="The workspace whose secret signed it.")
    event_type = models.CharField(max_length=64)
    resource_id = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=32, blank=True)
    outcome = models.CharField(max_length=200, blank=True, help_text="What the platform did with it.")
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["received_at"])]

    def __str__(self):
        return f"{self.event_type} {self.resource_id} {self.status}"


class ProlificCountryPick(models.Model):
    """The choice of Prolific's "Current Country of Residence" filter a researcher picked by hand
    for a pool, where the country's names match none of Prolific's (``country_choices``)."""

    pool = models.OneToOneField(CountryPool, on_delete=models.CASCADE, related_name="prolific_country_pick")
    choice_key = models.CharField(max_length=64)
    choice_label = models.CharField(max_length=200)
    picked_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    picked_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"{self.pool}: Prolific's {self.choice_label!r} ({self.choice_key})"
