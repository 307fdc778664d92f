"""What the API shows and takes. The write serializers check only the JSON types: the rules, and
their messages, are the pages' forms' and the services' (``api/validation.py``)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from studies.forms import CODE_FIELDS
from studies.models import CountryPool, PoolPanel, ProtocolVersion, Study, panel_label
from studies.panel_services import PANEL_SETTINGS

from .prolific_serializers import Items

STUDY_FIELDS = (
    "name", "instructions_md", "consent_md", "items_per_session", "lease_minutes", "max_skips_per_session",
    *CODE_FIELDS, "routing", "language",
)
POOL_FIELDS = (
    "annotations_per_item", "min_distinct_annotators",
    "require_born", "require_nationality", "require_childhood", "require_resident", "language", "adaptive_budget",
)


class StudySerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)

    class Meta:
        model = Study
        fields = ("id", "owner", "status", "protocol_version", "created_at", *STUDY_FIELDS)
        read_only_fields = fields


class StudySettingsSerializer(serializers.Serializer):
    """A study's settings as the settings page has them (each optional: left out, kept)."""

    name = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    instructions_md = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    consent_md = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    items_per_session = serializers.IntegerField(required=False)
    lease_minutes = serializers.IntegerField(required=False)
    max_skips_per_session = serializers.IntegerField(required=False, allow_null=True)
    code_completed = serializers.CharField(required=False, allow_blank=True)
    code_failed_mock = serializers.CharField(required=False, allow_blank=True)
    code_not_eligible = serializers.CharField(required=False, allow_blank=True)
    code_no_consent = serializers.CharField(required=False, allow_blank=True)
    code_all_skipped = serializers.CharField(required=False, allow_blank=True)
    code_failed_check = serializers.CharField(required=False, allow_blank=True)
    routing = serializers.CharField(required=False, help_text="country or all_pools")
    language = serializers.CharField(required=False, allow_blank=True, help_text="en, hi, ja or ar")


class StudyCreateSerializer(StudySettingsSerializer):
    """A new study: from a preset (``GET /api/v1/presets/``), or from a protocol spec (then ``name``
    is needed); settings left out are the preset's, else the defaults; completion codes are made."""

    preset = serializers.CharField(required=False, help_text="A preset's name.")
    protocol = serializers.JSONField(required=False, help_text="A protocol spec (see docs/fields.md).")


class ProtocolVersionSerializer(serializers.ModelSerializer):
    annotations = serializers.IntegerField(read_only=True, help_text="Annotations given under this version.")
    current = serializers.BooleanField(read_only=True)

    class Meta:
        model = ProtocolVersion
        fields = ("version", "created_at", "annotations", "current", "spec")
        read_only_fields = fields


class PoolSerializer(serializers.ModelSerializer):
    language = serializers.CharField(read_only=True, help_text="blank: the study's language; else en, hi, ja or ar")
    panel = serializers.SerializerMethodField(help_text="Prolific, or the name of the URL panel the pool recruits on")

    class Meta:
        model = CountryPool
        fields = ("id", "country", "country_name", *POOL_FIELDS, "panel")
        read_only_fields = fields

    def get_panel(self, pool: CountryPool) -> str:
        return panel_label(pool)  # the lists select the panel with the pool: no query


class PanelSerializer(serializers.ModelSerializer):
    """Where a pool recruits: Prolific, or a URL-parameter panel with its link's parameters, its
    completion link per ending and how entries are verified. Never the signing secret."""

    class Meta:
        model = PoolPanel
        fields = PANEL_SETTINGS


class PanelSettingsSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=PoolPanel.Kind.choices, required=False)
    verification = serializers.ChoiceField(choices=PoolPanel.Verification.choices, required=False)

    def get_fields(self):
        fields = super().get_fields()
        for name in PANEL_SETTINGS:  # the texts: names, parameters, completion links
            fields.setdefault(name, serializers.CharField(required=False, allow_blank=True))
        return fields


class PanelLinksSerializer(serializers.Serializer):
    ids = Items(child=serializers.CharField(max_length=64), min_length=1, max_length=5000,
                help_text="Participant ids: letters, digits, dots, dashes, underscores")


class PanelLinkSerializer(serializers.Serializer):
    participant_id = serializers.CharField()
    link = serializers.CharField()


class PoolSettingsSerializer(serializers.Serializer):
    annotations_per_item = serializers.IntegerField(required=False)
    min_distinct_annotators = serializers.IntegerField(required=False)
    require_born = serializers.BooleanField(required=False)
    require_nationality = serializers.BooleanField(required=False)
    require_childhood = serializers.BooleanField(required=False)
    require_resident = serializers.BooleanField(required=False)
    language = serializers.CharField(required=False, allow_blank=True, help_text="blank: the study's language")
    adaptive_budget = serializers.IntegerField(
        required=False, help_text="extra annotations the adaptive comparison mode may add to the pool's two-image "
        "comparison items, on the pairs of models whose order is least certain; 0: off (a fixed balanced design)",
    )


class PoolCreateSerializer(PoolSettingsSerializer):
    country = serializers.CharField(help_text="ISO 3166-1 alpha-2 code, e.g. IN.")


class HourSerializer(serializers.Serializer):
    hour = serializers.DateTimeField()
    annotations = serializers.IntegerField()


class PoolProgressSerializer(serializers.Serializer):
    """A pool's row of the study dashboard (``analysis.dashboard.PoolProgress``)."""

    pool = serializers.IntegerField(source="pool.pk")
    country = serializers.CharField(source="pool.country")
    entry_link = serializers.CharField()
    items = serializers.IntegerField()
    wanted = serializers.IntegerField()
    done = serializers.IntegerField()
    percent = serializers.IntegerField()
    remaining = serializers.IntegerField()
    leased_now = serializers.IntegerField()
    active_now = serializers.IntegerField()
    annotators_active = serializers.IntegerField()
    sessions_started = serializers.IntegerField()
    sessions_completed = serializers.IntegerField()
    sessions_released = serializers.IntegerField()
    blocked = serializers.IntegerField()
    annotations = serializers.IntegerField()
    last_hour = serializers.IntegerField()
    median_seconds = serializers.IntegerField(allow_null=True)
    finish_eta = serializers.DateTimeField(allow_null=True)
    not_eligible = serializers.IntegerField()
    failed_mock = serializers.IntegerField()
    no_consent = serializers.IntegerField()
    hourly = serializers.SerializerMethodField()

    @extend_schema_field(HourSerializer(many=True))
    def get_hourly(self, row) -> list[dict]:
        return HourSerializer([{"hour": h, "annotations": n} for h, n in row.hourly], many=True).data


class PresetSerializer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField()
