"""The API's study resources: studies, their protocol versions, pools and a pool's progress, and
the presets. Each view scopes its lookup (``study_for_user``/``pool_for_user``: 404 to a stranger,
403 to a viewer's change), checks the input as the page does, and calls the page's service."""

from __future__ import annotations

from django.db.models import Count
from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from analysis.dashboard import dashboard_pools
from annotation.links import panel_signed_links
from recruitment.selectors import panel_change_problem
from studies import panels, services
from studies.countries import COUNTRY_NAMES
from studies.forms import PoolForm, StudyForm
from studies.models import CountryPool, PoolPanel, ProtocolVersion, Study, panel_of
from studies.panel_forms import PanelForm
from studies.panel_services import PanelError, pool_panel_set
from studies.protocol import SpecError, parse_spec
from studies.selectors import pool_for_user, studies_for_user, study_for_user

from . import serializers as s
from .base import CursorPage
from .validation import form_cleaned, form_data, typed


class NewestVersionFirst(CursorPage):
    ordering = "-version"


class OldestFirst(CursorPage):
    ordering = "pk"


COUNTRY_FIXED = "A pool's country is its identity: it cannot change."
NOT_STAFF = "Studies are made by researchers' own accounts; ask an administrator for one."


class StudyList(generics.ListAPIView):
    """The studies you own or are a member of, newest first."""

    serializer_class = s.StudySerializer

    def get_queryset(self):
        return studies_for_user(self.request.user).select_related("owner")

    @extend_schema(
        request=s.StudyCreateSerializer, responses={201: s.StudySerializer},
        examples=[OpenApiExample(
            "From a preset", request_only=True, value={"preset": "caire-relevance", "name": "CAIRE, second round"})],
    )
    def post(self, request: Request) -> Response:
        """A new study from a preset's name or a protocol spec, with settings (the new-study page's
        checks and messages)."""
        if not request.user.is_staff:
            raise PermissionDenied(NOT_STAFF)
        given = typed(s.StudyCreateSerializer, request.data)
        preset_name, spec = given.pop("preset", None), given.pop("protocol", None)
        if (preset_name is None) == (spec is None):
            raise ValidationError({"non_field_errors": ["Give either a preset's name or a protocol spec."]})
        base, problems = services.completion_codes(), {}
        if preset_name is not None:
            try:
                preset = services.preset_get(preset_name)
            except ValueError as unknown:
                raise ValidationError({"preset": [str(unknown)]}) from None
            base |= {"name": preset.title, **preset.study}
        else:
            try:
                parse_spec(spec)
            except SpecError as refused:
                problems["protocol"] = list(refused.errors)
        form = StudyForm(form_data(Study(), StudyForm, given, base))
        cleaned = form_cleaned(form, problems)
        if preset_name is not None:
            study = services.study_create_from_preset(
                owner=request.user, preset=preset_name, name=cleaned["name"], **form.settings())
        else:
            study = services.study_create(owner=request.user, name=cleaned["name"], protocol=spec, **form.settings())
        return Response(s.StudySerializer(study).data, status=status.HTTP_201_CREATED)


class StudyDetail(generics.GenericAPIView):
    serializer_class = s.StudySerializer

    def get(self, request: Request, pk: int) -> Response:
        return Response(s.StudySerializer(study_for_user(request.user, pk)).data)

    @extend_schema(request=s.StudySettingsSerializer, responses=s.StudySerializer)
    def patch(self, request: Request, pk: int) -> Response:
        """Change settings (the settings page's checks and messages); those left out are kept."""
        study = study_for_user(request.user, pk, write=True)
        given = typed(s.StudySettingsSerializer, request.data)
        form = StudyForm(form_data(study, StudyForm, given), instance=study)
        cleaned = form_cleaned(form)
        try:
            services.study_update(study=study, name=cleaned["name"], **form.settings())
        finally:
            study.refresh_from_db()  # the form wrote on the instance; the row says what is kept
        return Response(s.StudySerializer(study).data)


class ProtocolVersionList(generics.ListAPIView):
    """Every stored version of the study's protocol, newest first, with its annotations."""

    serializer_class = s.ProtocolVersionSerializer
    pagination_class = NewestVersionFirst

    def get_queryset(self):
        self.study = study_for_user(self.request.user, self.kwargs["pk"])
        return ProtocolVersion.objects.filter(study=self.study)

    def paginate_queryset(self, queryset):
        page = super().paginate_queryset(queryset) or []
        # ``annotations`` is the reverse of annotation.Annotation.study; one grouped count per page.
        counts = dict(
            self.study.annotations.filter(protocol_version__in=[v.version for v in page])
            .values_list("protocol_version").annotate(n=Count("pk")).order_by()
        )
        for row in page:
            row.annotations, row.current = counts.get(row.version, 0), row.version == self.study.protocol_version
        return page


class PoolList(generics.ListAPIView):
    """The study's country pools."""

    serializer_class = s.PoolSerializer
    pagination_class = OldestFirst

    def get_queryset(self):
        return CountryPool.objects.filter(study=study_for_user(self.request.user, self.kwargs["pk"])).select_related(
            "panel")

    @extend_schema(
        request=s.PoolCreateSerializer, responses={201: s.PoolSerializer},
        examples=[OpenApiExample(
            "A pool of Kenya", request_only=True, value={"country": "KE", "annotations_per_item": 3})],
    )
    def post(self, request: Request, pk: int) -> Response:
        """Add a country pool (the pool form's checks and messages); its items get their quotas."""
        study = study_for_user(request.user, pk, write=True)
        given = typed(s.PoolCreateSerializer, request.data)
        form = PoolForm(form_data(CountryPool(), PoolForm, given), study=study)
        cleaned = form_cleaned(form)
        country = cleaned["country"]
        pool = services.pool_create(
            study=study, country=country, country_name=COUNTRY_NAMES[country], **form.settings())
        return Response(s.PoolSerializer(pool).data, status=status.HTTP_201_CREATED)


class PoolDetail(generics.GenericAPIView):
    serializer_class = s.PoolSerializer

    def get(self, request: Request, pk: int, pool_id: int) -> Response:
        return Response(s.PoolSerializer(pool_for_user(request.user, pk, pool_id)).data)

    @extend_schema(request=s.PoolSettingsSerializer, responses=s.PoolSerializer)
    def patch(self, request: Request, pk: int, pool_id: int) -> Response:
        """Change a pool's settings (the pool form's checks and messages); its country stays."""
        pool = pool_for_user(request.user, pk, pool_id, write=True)
        given = typed(s.PoolSettingsSerializer, request.data, country=COUNTRY_FIXED)
        form = PoolForm(form_data(pool, PoolForm, given), instance=pool, study=pool.study)
        form_cleaned(form)
        try:
            services.pool_update(pool=pool, **form.settings())
        finally:
            pool.refresh_from_db()
        return Response(s.PoolSerializer(pool).data)


class PanelDetail(generics.GenericAPIView):
    serializer_class = s.PanelSerializer

    def get(self, request: Request, pk: int, pool_id: int) -> Response:
        """Where the pool recruits (a pool never set is on Prolific); never the signing secret."""
        pool = pool_for_user(request.user, pk, pool_id)
        return Response(s.PanelSerializer(PoolPanel.objects.filter(pool=pool).first() or PoolPanel(pool=pool)).data)

    @extend_schema(
        request=s.PanelSettingsSerializer, responses=s.PanelSerializer,
        examples=[OpenApiExample("A pool on CloudResearch Connect", request_only=True, value={
            "kind": "url", "name": "CloudResearch Connect", "participant_param": "participantId",
            "verification": "none", "url_completed": "https://connect.cloudresearch.com/participant/complete?c={code}",
        })],
    )
    def put(self, request: Request, pk: int, pool_id: int) -> Response:
        """Set where the pool recruits (the panel page's checks and messages); a setting left out
        keeps its value, and a pool with a study on Prolific stays on Prolific."""
        pool = pool_for_user(request.user, pk, pool_id, write=True)
        given = typed(s.PanelSettingsSerializer, request.data)
        instance = PoolPanel.objects.filter(pool=pool).first() or PoolPanel(pool=pool)
        form = PanelForm(form_data(instance, PanelForm, given), instance=instance)
        cleaned = form_cleaned(form)
        problem = panel_change_problem(pool=pool, kind=cleaned.get("kind") or "")
        if problem:
            raise ValidationError({"kind": [problem]})
        try:
            panel = pool_panel_set(pool=pool, **form.settings())
        except PanelError as refused:
            raise ValidationError({refused.field or "non_field_errors": [str(refused)]}) from refused
        return Response(s.PanelSerializer(panel).data)


class PanelLinks(generics.GenericAPIView):
    serializer_class = s.PanelLinkSerializer
    pagination_class = None

    @extend_schema(request=s.PanelLinksSerializer, responses=s.PanelLinkSerializer(many=True))
    def post(self, request: Request, pk: int, pool_id: int) -> Response:
        """Signed entry links of a pool on a URL panel, one per participant id (the owner's and
        editors'; the signing secret itself is never sent)."""
        pool = pool_for_user(request.user, pk, pool_id, write=True)
        given = typed(s.PanelLinksSerializer, request.data)
        panel = panel_of(pool)
        if panel is None or panel.verification != PoolPanel.Verification.SIGNED:
            raise ValidationError({"non_field_errors": ["This pool has no signed links: it is not on a URL panel "
                                                        "with signed links."]})
        ids, bad = panels.ids_read("\n".join(given["ids"]))
        if bad or len(ids) != len(set(given["ids"])):
            raise ValidationError({"ids": [f"Not an id: {', '.join(bad[:5]) or 'an id with a space'}."]})
        links = panel_signed_links(pool, panel, ids)
        return Response(s.PanelLinkSerializer([{"participant_id": i, "link": link} for i, link in links],
                                              many=True).data)


class PoolProgressView(generics.GenericAPIView):
    serializer_class = s.PoolProgressSerializer

    def get(self, request: Request, pk: int, pool_id: int) -> Response:
        """What the study dashboard shows of the pool: quotas, leases, sessions, outcomes, pace."""
        pool = pool_for_user(request.user, pk, pool_id)
        row = next(r for r in dashboard_pools(study=pool.study) if r.pool.pk == pool.pk)
        return Response(s.PoolProgressSerializer(row).data)


class PresetList(generics.GenericAPIView):
    serializer_class = s.PresetSerializer
    pagination_class = None

    @extend_schema(responses=s.PresetSerializer(many=True))
    def get(self, request: Request) -> Response:
        """The ready protocols a study may start from (a fixed, short list shipped with Tessera)."""
        return Response(s.PresetSerializer(services.presets_list(), many=True).data)


@csrf_exempt  # as DRF's views: a write here is a 404, never the CSRF check's HTML 403
def nowhere(request: HttpRequest, *args, **kwargs) -> JsonResponse:
    """An address under api/ that names no resource: the API's 404, in JSON."""
    return JsonResponse({"detail": "Not found."}, status=404)
