"""What the Prolific resources show and take (``api/prolific.py``). The write serializers check only
the JSON types; the rules and their messages are the pages' forms' (LaunchForm, RejectForm,
ReturnForm, ReviewFilterForm) and the services'."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from recruitment.selectors import VERBS_BY_STATUS

from .jobs import JobSerializer

ID = {"min_value": 1, "max_value": 2**31 - 1}  # a row's id: anything else names no row


class Items(serializers.ListField):
    """A list whose refused items are said in the field's own list of messages ("Item 2: …"), as
    every 400 names a field with its messages (DRF's own nests them under each item's index)."""

    def run_child_validation(self, data):
        try:
            return super().run_child_validation(data)
        except serializers.ValidationError as refused:
            raise serializers.ValidationError([
                f"Item {index + 1}: {message}"
                for index, messages in refused.detail.items() for message in messages
            ]) from None


class RefusalSerializer(serializers.Serializer):
    """A refusal of the study's state (409) or of Prolific (502), in words fit to show."""

    detail = serializers.CharField()


class ProlificStudySerializer(serializers.Serializer):
    """A pool's study on Prolific, as last read from Prolific (``status`` blank: not created there)."""

    pool = serializers.IntegerField(source="pool_id")
    country = serializers.CharField(source="pool.country")
    prolific_id = serializers.CharField(help_text="Blank until Prolific created the study.")
    status = serializers.CharField(help_text="Prolific's: UNPUBLISHED, ACTIVE, PAUSED, AWAITING REVIEW, …")
    places = serializers.IntegerField()
    reward = serializers.IntegerField(help_text="Per participant, in minor units (pence, cents).")
    currency = serializers.CharField()
    estimated_minutes = serializers.IntegerField()
    maximum_allowed_minutes = serializers.IntegerField(allow_null=True)
    devices = serializers.ListField(child=serializers.CharField())
    total_cost = serializers.IntegerField(allow_null=True, help_text="As Prolific reports it, minor units.")
    last_error = serializers.CharField()
    synced_at = serializers.DateTimeField(allow_null=True)
    submissions = serializers.DictField(
        child=serializers.IntegerField(), source="counts", help_text="How many submissions in each status."
    )
    actions = serializers.SerializerMethodField(help_text="The transitions its status allows.")

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_actions(self, row) -> list[str]:
        return list(VERBS_BY_STATUS.get(row.status, ())) if row.created else []


class LaunchSerializer(serializers.Serializer):
    """The launch page's choices (its form checks them, with its messages)."""

    reward = serializers.DecimalField(
        max_digits=None, decimal_places=None, help_text="In the Prolific account's currency (major units), e.g. 1.50."
    )
    minutes = serializers.IntegerField(help_text="Estimated completion time, minutes.")
    max_minutes = serializers.IntegerField(required=False, allow_null=True, help_text="Null: the least Prolific takes.")
    devices = Items(child=serializers.CharField(), required=False, help_text="desktop, tablet, mobile")
    filters = Items(
        child=serializers.CharField(), required=False,
        help_text="Further Prolific filters by title: 'Nationality', 'First Language=Hindi|Tamil'.",
    )
    auto_approve = serializers.BooleanField(required=False)
    description = serializers.CharField(required=False, allow_blank=True)
    screen_out_reward = serializers.DecimalField(
        max_digits=None, decimal_places=None, required=False, allow_null=True,
        help_text="Pay screen-outs this fixed reward (major units, at least 0.10 GBP or 0.14 USD); null: an "
        "eligibility 'no' returns the study.",
    )
    secured_entry = serializers.BooleanField(
        required=False, help_text="Check Prolific's signed token on every entry link (its secured study URL).")
    allow_groups = Items(child=serializers.IntegerField(), required=False,
                         help_text="Restrict to these participant groups of yours (ids).")
    block_groups = Items(child=serializers.IntegerField(), required=False,
                         help_text="Exclude these participant groups of yours (ids).")
    exclude_studies = Items(child=serializers.IntegerField(), required=False,
                            help_text="Exclude the participants of these earlier studies of yours on Prolific (ids).")
    pool = serializers.IntegerField(required=False, help_text="One pool of the study; left out: every pool.", **ID)


class LaunchResultSerializer(serializers.Serializer):
    ok = serializers.BooleanField(help_text="False: this pool was not launched (see error); the others were tried.")
    error = serializers.CharField(help_text="Why this pool failed, its country named; empty when ok.")
    created = serializers.BooleanField(help_text="False: the pool was on Prolific already, or it failed.")
    prolific_study = ProlificStudySerializer(allow_null=True, help_text="Null: nothing was written for the pool.")


class PoolChoiceSerializer(serializers.Serializer):
    pool = serializers.IntegerField(required=False, help_text="One pool of the study; left out: every pool.", **ID)


class TransitionResultSerializer(serializers.Serializer):
    pool = serializers.IntegerField(source="prolific_study.pool_id")
    ok = serializers.BooleanField()
    message = serializers.CharField(help_text="As the page says it: the new status, or why it failed.")
    status = serializers.CharField(source="prolific_study.status")


class SubmissionSerializer(serializers.Serializer):
    """A participant's submission as Prolific last reported it, with what the platform knows."""

    id = serializers.IntegerField(source="pk")
    pool = serializers.IntegerField(source="prolific_study.pool_id")
    prolific_id = serializers.CharField(help_text="Prolific's submission id (SESSION_ID).")
    participant_id = serializers.CharField(help_text="Prolific's PROLIFIC_PID.")
    status = serializers.CharField()
    study_code = serializers.CharField(help_text="The completion code it was submitted with.")
    outcome = serializers.SerializerMethodField(help_text="What the code says of our session: completed, no consent, …")
    session = serializers.IntegerField(source="session_id", allow_null=True, help_text="Our annotator session.")
    entry_check = serializers.CharField(help_text="blank, verified, pending or failed")
    return_requested_at = serializers.DateTimeField(allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    completed_at = serializers.DateTimeField(allow_null=True)

    def get_outcome(self, sub) -> str:
        meanings = self.context["code_meanings"]
        return meanings.get(sub.study_code, "unknown code") if sub.study_code else ""


class ApproveSerializer(serializers.Serializer):
    submissions = Items(
        child=serializers.IntegerField(**ID), min_length=1, max_length=1000,
        help_text="Ids of the study's submissions awaiting review (as listed by …/prolific/submissions/).",
    )


class RejectSerializer(serializers.Serializer):
    category = serializers.CharField(help_text="Prolific's rejection category, e.g. FAILED_CHECK.")
    message = serializers.CharField(help_text="To the participant: at least 100 characters.")


class ReturnSerializer(serializers.Serializer):
    reasons = Items(
        child=serializers.CharField(allow_blank=True), help_text="Shown to the participant, one an item."
    )


class BonusLineSerializer(serializers.Serializer):
    who = serializers.CharField(help_text="A Prolific submission id or participant id.")
    amount = serializers.IntegerField(help_text="Minor units (pence, cents).")


class BonusSerializer(serializers.Serializer):
    """Bonuses to participants of one pool's study: written down (draft), set up on Prolific (its
    fees, VAT and total come back), then paid, once."""

    id = serializers.IntegerField(source="pk")
    pool = serializers.IntegerField(source="prolific_study.pool_id")
    state = serializers.CharField(help_text="draft, setting_up, set_up, paying, paid or uncertain (check on Prolific)")
    lines = BonusLineSerializer(many=True)
    amount = serializers.IntegerField(help_text="What the participants get, minor units.")
    currency = serializers.CharField()
    fees = serializers.IntegerField(allow_null=True, help_text="Prolific's, once set up.")
    vat = serializers.IntegerField(allow_null=True)
    total_amount = serializers.IntegerField(allow_null=True)
    prolific_id = serializers.CharField(help_text="Prolific's bulk bonus id, once set up.")
    created_at = serializers.DateTimeField()
    paid_at = serializers.DateTimeField(allow_null=True)


class BonusCreateSerializer(serializers.Serializer):
    pool = serializers.IntegerField(help_text="A pool of the study on Prolific.", **ID)
    lines = Items(
        child=serializers.CharField(allow_blank=True),
        help_text="One a bonus: a submission or participant id, a comma, the amount in major units ('5f3e…,1.50').",
    )


class ProlificJobSerializer(JobSerializer):
    """A review action run as a job; ``status`` ``waiting``: Prolific was busy, it is tried again."""

    kind = serializers.CharField(help_text="submissions (a refresh), approve, bulk_approve, reject, return, …")
    pool = serializers.IntegerField(source="prolific_study.pool_id")
    submissions = serializers.IntegerField(source="n_submissions", help_text="How many submissions it takes.")
    attempts = serializers.IntegerField(source="attempt", help_text="Claims so far (tried again after a wait).")
    outcome = serializers.CharField(help_text="What happened, once done.")
    progress = None  # a Prolific action has no percentage: its outcome says what it did

    def get_url(self, job) -> str:  # each job of a list has its own address
        return self.context["request"].build_absolute_uri(reverse("api:prolific-job", args=[job.study_id, job.pk]))


class JobsStartedSerializer(serializers.Serializer):
    jobs = ProlificJobSerializer(many=True, help_text="One job a pool: poll each one's url.")


# --- messages (issue 28, part 2: api/prolific_messages.py) -----------------------------------


class MessageSendSerializer(serializers.Serializer):
    """A message to one participant of a pool's study, or to every participant of it (the page's
    MessageForm checks it, with its messages)."""

    pool = serializers.IntegerField(help_text="A pool of the study on Prolific.", **ID)
    participant = serializers.CharField(
        required=False, allow_blank=True, max_length=64,
        help_text="A participant's Prolific id (PROLIFIC_PID) with a submission in the pool's study; left out or "
        "empty: every participant of it.",
    )
    body = serializers.CharField(help_text="The message: not empty, at most 5,000 characters.")


class MessageSentSerializer(serializers.Serializer):
    sent = serializers.IntegerField(help_text="Participants messaged.")
    calls = serializers.IntegerField(help_text="Calls to Prolific (a bulk message goes in chunks of 4,000).")
    summary = serializers.CharField(help_text="As the page says it.")


class MessageSerializer(serializers.Serializer):
    """A message of the last 30 days about one of the study's Prolific studies, as Prolific lists it."""

    id = serializers.CharField()
    sender_id = serializers.CharField(help_text="The sender's Prolific id.")
    body = serializers.CharField()
    sent_at = serializers.DateTimeField(allow_null=True)
    study_id = serializers.CharField(help_text="The Prolific study it is about.")
    category = serializers.CharField()
