"""What is asked: studies, their country pools, items and the practice test."""

import json
import secrets
import uuid
from functools import cached_property, lru_cache
from pathlib import PurePosixPath

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.utils.translation import gettext

from jobs.models import Job

from . import protocol as protocol_engine
from .countries import country_name


@lru_cache(maxsize=256)
def parsed_protocol(text: str) -> protocol_engine.Protocol:
    """A spec's JSON text parsed, once per process: every request of a study reads the same
    immutable ``Protocol`` instead of parsing its spec again."""
    return protocol_engine.parse_spec(json.loads(text))


def completion_code() -> str:
    """A fresh completion code (eight hexadecimal capitals)."""
    return secrets.token_hex(4).upper()


class Study(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    class Routing(models.TextChoices):
        COUNTRY = "country", "To the pool of the item's country"
        ALL_POOLS = "all_pools", "To every pool"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="studies")
    name = models.CharField(max_length=200)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    protocol = models.JSONField(help_text="The protocol spec: the questions asked of every item.")
    protocol_version = models.PositiveIntegerField(default=1, editable=False)
    routing = models.CharField(max_length=10, choices=Routing.choices, default=Routing.COUNTRY)
    consent_md = models.TextField("consent text (Markdown)", blank=True)
    instructions_md = models.TextField("instructions (Markdown)", blank=True)
    language = models.CharField(
        "language of the study's texts", max_length=8, choices=settings.LANGUAGES, default="en",
        help_text="The language the consent, instructions and questions are written in; the fallback "
        "wherever a translation is missing.",
    )
    translations = models.JSONField(
        default=dict, blank=True,
        help_text="The researcher's texts in other languages: {language: {text key: text}}.",
    )
    items_per_session = models.PositiveSmallIntegerField(default=5)
    lease_minutes = models.PositiveSmallIntegerField(
        default=30, help_text="How long an item stays reserved for an annotator who opened it."
    )
    mock_attempts_allowed = models.PositiveSmallIntegerField("practice test attempts allowed", default=2)
    mock_questions_per_attempt = models.PositiveSmallIntegerField(
        "practice questions per attempt", null=True, blank=True,
        help_text="How many of the practice questions each attempt draws (different ones on a retry while there "
        "are enough); blank: every question, every attempt.",
    )
    prolific_study_id = models.CharField(
        max_length=64, blank=True, help_text="When set, entry links must carry this STUDY_ID."
    )
    code_completed = models.CharField("completion code: completed", max_length=64)
    code_failed_mock = models.CharField("completion code: failed the practice test", max_length=64)
    code_not_eligible = models.CharField("completion code: not eligible", max_length=64)
    code_no_consent = models.CharField("completion code: no consent", max_length=64)
    code_all_skipped = models.CharField(
        "completion code: skipped every item", max_length=64, default=completion_code,
        help_text="Given to a session whose every item was skipped, instead of the completed code.",
    )
    code_failed_check = models.CharField(
        "completion code: failed attention checks", max_length=64, default=completion_code,
        help_text="Given to a session ended by failed attention checks (the protocol's quality.outcomes).",
    )
    max_skips_per_session = models.PositiveSmallIntegerField(
        "skips allowed per session", null=True, blank=True,
        help_text="How many items an annotator may skip in one session; blank: no limit.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "studies"
        constraints = [
            models.CheckConstraint(condition=Q(items_per_session__gte=1), name="study_items_per_session_positive"),
            models.CheckConstraint(condition=Q(lease_minutes__gte=1), name="study_lease_minutes_positive"),
        ]

    def __str__(self):
        return self.name

    @property
    def by_country(self) -> bool:
        """Whether an item goes to the pool of its country alone (else to every pool)."""
        return self.routing == Study.Routing.COUNTRY

    def routes(self, *, item_country: str, pool_country: str) -> bool:
        """Whether the study routes an item of ``item_country`` to the pool of ``pool_country``:
        the routing rule (``ItemQuerySet.routed_to`` is its query)."""
        return not self.by_country or item_country == pool_country

    @cached_property
    def spec(self) -> protocol_engine.Protocol:
        return parsed_protocol(json.dumps(self.protocol, sort_keys=True))

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN


class ProtocolVersion(models.Model):
    """Every spec a study has had, so an answer is always read with the spec it was given under."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="protocol_versions")
    version = models.PositiveIntegerField()
    spec = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["study", "version"], name="protocol_version_unique")]

    def __str__(self):
        return f"{self.study} v{self.version}"


class CountryPool(models.Model):
    """The annotators of one country for one study, with their quota and eligibility rules."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="pools")
    country = models.CharField(max_length=2, help_text="ISO 3166-1 alpha-2 code, e.g. IN.")
    country_name = models.CharField(max_length=100)
    entry_key = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    annotations_per_item = models.PositiveSmallIntegerField(default=3)
    min_distinct_annotators = models.PositiveIntegerField(
        default=0, help_text="Caps the items one annotator may take so that at least this many take part."
    )
    require_born = models.BooleanField("ask: born in the country", default=True)
    require_nationality = models.BooleanField("ask: nationality", default=True)
    require_childhood = models.BooleanField("ask: most of the first 18 years in the country", default=True)
    require_resident = models.BooleanField("ask: currently resident", default=True)
    language = models.CharField(
        "annotators' language", max_length=8, choices=settings.LANGUAGES, blank=True, default="",
        help_text="The language of the annotator's pages for this pool; blank for the study's language. "
        "Annotators may switch.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "country"], name="pool_one_per_country"),
            models.CheckConstraint(condition=Q(annotations_per_item__gte=1), name="pool_wanted_positive"),
        ]

    def __str__(self):
        return f"{self.study} · {self.country_name}"

    def eligibility_questions(self) -> list[tuple[str, str]]:
        """The screening questions this pool asks, as (key, question) in the active language; every answer
        must be yes."""
        asked = [
            ("born", self.require_born, gettext("Were you born in {country}?")),
            ("nationality", self.require_nationality, gettext("Are you a national (citizen) of {country}?")),
            ("childhood", self.require_childhood, gettext("Did you spend most of your first 18 years in {country}?")),
            ("resident", self.require_resident, gettext("Do you live in {country} now?")),
        ]
        country = self.local_country_name()
        return [(key, question.format(country=country)) for key, wanted, question in asked if wanted]

    def local_country_name(self) -> str:
        """The pool's country in the active language (the annotator's), else its stored English name."""
        return country_name(self.country, self.country_name)


STUDY_FILE_KINDS = ("items", "exports", "uploads", "imports")


def study_files_prefix(study_id: int, kind: str) -> str:
    """Every file stored for a study lives under one of these folders, so it can go with the study."""
    assert kind in STUDY_FILE_KINDS
    return f"{kind}/{study_id}"


def random_name(folder: str, stem: str, suffix: str) -> str:
    """A stored file's name: its folder, a readable stem and a random part, so that knowing (or
    guessing) what a file holds, or when it was written, never gives its name. Every file is stored
    under such a name and served only by scoped views; the name is a second wall, for a storage or
    a proxy that ever exposes them. A download is named for the user by its view, not by this."""
    return f"{folder}/{stem}-{secrets.token_hex(16)}{suffix}"


def stored_name(prefix: str, sha256: str, suffix: str) -> str:
    """A content-addressed file's name (an item image, an upload): its content's hash and a random part."""
    return random_name(f"{prefix}/{sha256[:2]}", sha256, suffix)


def item_image_path(item, filename):
    return stored_name(study_files_prefix(item.study_id, "items"), item.sha256, _suffix(filename))


def _suffix(filename: str) -> str:
    dot = filename.rfind(".")
    return filename[dot:].lower() if dot != -1 else ""


class CheckKind(models.TextChoices):
    """What an item is for quality control (``Item.check_kind``); an ordinary item is none."""

    NONE = "", "Ordinary item"
    ATTENTION = "attention", "Attention check"
    GOLD = "gold", "Gold item"


class ItemQuerySet(models.QuerySet):
    def ordinary(self) -> "ItemQuerySet":
        """The items annotators rate from a quota, that the agreement, reports and exports read:
        not a practice test's example, not an attention check or a gold item."""
        return self.filter(is_example=False, check_kind=CheckKind.NONE)

    def routed_to(self, pool: "CountryPool", *, study: Study | None = None) -> "ItemQuerySet":
        """The items of the pool's study that the study routes to the pool: those of the pool's
        country, or every item when the study routes every item to every pool (``study``: the
        pool's study when the caller has it, so that it is not read again)."""
        study = study or pool.study
        items = self.filter(study_id=study.pk)
        if study.by_country:
            items = items.filter(country=pool.country)
        return items


class Item(models.Model):
    """One thing shown to annotators: here a prompt and the image a model drew for it."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="items")
    external_id = models.CharField(max_length=200, help_text="The item's id in the researcher's own data.")
    country = models.CharField(max_length=2)
    prompt = models.TextField(blank=True)
    caption = models.TextField(blank=True)
    texts = models.JSONField(
        default=dict, blank=True,
        help_text=f"Further named texts: {', '.join(protocol_engine.spec.ITEM_FURTHER_TEXTS)}.",
    )
    candidates = models.JSONField(
        default=list, blank=True, help_text='Texts to choose among: [{"id": "sys-a", "text": "…"}, …].'
    )
    author_pid = models.CharField(
        max_length=64, blank=True, help_text="Prolific id of the annotator who wrote this item; never assigned to them."
    )
    derived = models.BooleanField(
        default=False, editable=False, help_text="Made from another study's annotations (seeding), not imported."
    )
    source = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="derivatives",
        help_text="The item this one refers to (an answer item refers to its question's image).",
    )
    model_name = models.CharField(max_length=200, blank=True)
    category = models.CharField(max_length=200, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    image = models.ImageField(upload_to=item_image_path, max_length=300, blank=True)
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    sha256 = models.CharField(max_length=64, blank=True, help_text="Of the image file; empty for an item without one.")
    is_example = models.BooleanField(default=False, help_text="Used by the practice test; never assigned.")
    check_kind = models.CharField(
        "quality check", max_length=10, choices=CheckKind.choices, default="", blank=True,
        help_text="An attention check or a gold item: served by a session's schedule, never from a quota, and "
        "never in the agreement or the exports.",
    )
    expected = models.JSONField(
        null=True, blank=True,
        help_text="A check item's answers by field key: the instructed answers of an attention check, the known "
        "answers of a gold item.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ItemQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "external_id"], name="item_external_id_unique"),
            # An image is imported once per study; items derived from another study's annotations
            # (answer items of several questions on one image) may share it.
            models.UniqueConstraint(
                fields=["study", "sha256"], condition=~Q(sha256="") & Q(derived=False), name="item_image_unique"
            ),
        ]
        indexes = [models.Index(fields=["study", "country"])]

    def __str__(self):
        return self.external_id

    def text_map(self) -> dict[str, str]:
        """The item texts a protocol field or the page may refer to, by name."""
        texts = {name: str(value) for name, value in (self.texts or {}).items()}
        return {**texts, "prompt": self.prompt, "caption": self.caption}


class Document(models.Model):
    """A document shown with an item (RAVENEA: a retrieved Wikipedia article)."""

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="documents")
    position = models.PositiveSmallIntegerField()
    title = models.CharField(max_length=500)
    url = models.URLField(max_length=1000, blank=True)
    text = models.TextField(blank=True)

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["item", "position"], name="document_position_unique")]

    def __str__(self):
        return self.title


class ItemQuotaQuerySet(models.QuerySet):
    def with_room(self) -> "ItemQuotaQuerySet":
        """The quotas with a free slot: ``done + leased < wanted``. Every slot is taken by a
        conditional UPDATE on this filter, so it is taken only if still free when the row is written."""
        return self.filter(leased__lt=F("wanted") - F("done"))


class ItemQuota(models.Model):
    """How many annotations one (item, pool) pair wants, has, and has out on lease.

    ``done + leased <= wanted`` is a database constraint; leases are taken with a conditional
    UPDATE on it, so concurrent annotators can never overfill an item.
    """

    # No index of their own: (item, pool) is unique and (pool, done, leased) is indexed, which
    # serve both; an index less is a write less on every lease and submit.
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="quotas", db_index=False)
    pool = models.ForeignKey(CountryPool, on_delete=models.CASCADE, related_name="quotas", db_index=False)
    wanted = models.PositiveSmallIntegerField()
    done = models.PositiveSmallIntegerField(default=0)
    leased = models.PositiveSmallIntegerField(default=0)
    reopened = models.PositiveSmallIntegerField(
        default=0, help_text="Annotations wanted again because a checker flagged one: on top of the pool's number."
    )

    objects = ItemQuotaQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "pool"], name="quota_one_per_item_pool"),
            models.CheckConstraint(condition=Q(done__lte=F("wanted") - F("leased")), name="quota_not_overfilled"),
        ]
        indexes = [models.Index(fields=["pool", "done", "leased"])]

    def __str__(self):
        return f"{self.item} in {self.pool}: {self.done}+{self.leased}/{self.wanted}"


class MockQuestion(models.Model):
    """One question of the practice test, asked about an example item, with its expected answer."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="mock_questions")
    item = models.ForeignKey(Item, on_delete=models.RESTRICT, null=True, blank=True, related_name="+")
    position = models.PositiveSmallIntegerField(default=0)
    text = models.CharField(max_length=500)
    choices = models.JSONField(help_text='A list of answer labels, e.g. ["No", "Partially", "Completely"].')
    expected = models.CharField(max_length=200, help_text="The one right answer: one of the choices.")
    explanation = models.TextField(blank=True, help_text="Shown after a failed attempt.")

    class Meta:
        ordering = ["position", "id"]
        verbose_name = "practice question"

    def __str__(self):
        return self.text


class Role(models.TextChoices):
    """What a study member may do: a viewer reads every page of the study; an editor is a full
    co-researcher except for what only the owner may do (members, Prolific: see ``studies.selectors``).
    A checker reviews one pool's annotations and sees nothing else (its row is ``annotation.Checker``;
    the role is named here for invitations)."""

    VIEWER = "viewer", "Viewer (read-only)"
    EDITOR = "editor", "Editor (co-researcher)"
    CHECKER = "checker", "Checker of a pool"


class StudyMember(models.Model):
    """A researcher who shares a study they do not own, with a role (viewer or editor)."""

    MEMBER_ROLES = (Role.VIEWER, Role.EDITOR)

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="study_memberships")
    role = models.CharField(max_length=10, choices=[(r.value, r.label) for r in MEMBER_ROLES])
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "user"], name="study_member_unique"),
            models.CheckConstraint(condition=Q(role__in=["viewer", "editor"]), name="study_member_role_known"),
        ]

    def __str__(self):
        return f"{self.user} ({self.role}) of {self.study}"


class StudyInvitation(models.Model):
    """An invitation to join a study with a role, sent to an email address. Only the SHA-256 of its
    random token is stored; the link carries the token. Used once: accepted, revoked or expired, it
    opens nothing."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    role = models.CharField(max_length=10, choices=Role.choices)
    pool = models.ForeignKey(
        CountryPool, on_delete=models.CASCADE, null=True, blank=True, related_name="invitations",
        help_text="The pool a checker checks (checkers only).",
    )
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    grants_researcher = models.BooleanField(
        default=False,
        help_text="Accepting it also makes the account a researcher's: it may create studies of its own.",
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(Q(role="checker") & Q(pool__isnull=False)) | (~Q(role="checker") & Q(pool__isnull=True)),
                name="study_invitation_pool_iff_checker",
            ),
            # one open invitation per address and study (an expired one is closed before a new one)
            models.UniqueConstraint(
                Lower("email"), "study", condition=Q(accepted_at__isnull=True, revoked_at__isnull=True),
                name="study_invitation_one_open_per_email",
            ),
        ]

    def __str__(self):
        return f"{self.email} as {self.role} of {self.study}"


class StudyJob(Job):
    """A background job of one study (an analysis run, an import, an export), asked for by a
    researcher. Each kind names its own ``study`` with its related name."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="+")
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    data_fingerprint = models.CharField(
        max_length=200, blank=True, help_text="The annotations this job saw; a newer one makes it stale."
    )

    class Meta(Job.Meta):
        abstract = True


def import_upload_path(job: "ImportJob", filename: str) -> str:
    """The upload under its own name and a random part (the job keeps the name as given)."""
    name = PurePosixPath(filename)
    return random_name(study_files_prefix(job.study_id, "imports"), name.stem or "upload", name.suffix)


class ImportJob(StudyJob):
    """Items imported from the browser: the uploaded rows file and images zip, checked and written
    by the same ``items_import`` as ``manage.py import_items`` (``studies/importing/job.py``). The
    uploads are deleted once the job ends."""

    task = "studies.tasks.import_run_task"
    # The items are written in one transaction: a dead worker's rolled back, and its uploads are kept
    # (deleted only when a run ends). Lost in the instant after the commit, a repeat is refused by
    # the "already in the study" check: never a duplicate item.
    requeue_safe = True

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="import_jobs")
    rows_name = models.CharField(max_length=255)
    rows_file = models.FileField(upload_to=import_upload_path, max_length=500, blank=True)
    images_name = models.CharField(max_length=255, blank=True)
    images_file = models.FileField(upload_to=import_upload_path, max_length=500, blank=True)
    created_items = models.PositiveIntegerField(default=0)
    summary = models.TextField(blank=True)
    problems = models.JSONField(default=list, blank=True, help_text="Every problem of a refused file, with its line.")

    def __str__(self):
        return f"import of {self.rows_name} into {self.study}"
