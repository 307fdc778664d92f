"""A study, the versions of its protocol, and its country pools."""

import json
import secrets
import uuid
from functools import cached_property, lru_cache

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext

from .. import protocol as protocol_engine
from ..countries import country_name


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
    adaptive_budget = models.PositiveIntegerField(
        "adaptive comparison budget", default=0,
        help_text="Extra annotations the adaptive comparison mode may add to this pool's two-image comparison "
        "items, on the pairs of models whose order is least certain; 0 = off, a fixed balanced design.",
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
