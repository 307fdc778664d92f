"""The API's items of a study: the list (the items page's own search and filters, ``items_search``,
a cursor page in import order), one item, and imports: a rows file and an images zip uploaded as
the import page takes them (``studies.importing.job.import_start``, its refusals under their field, a body
past the page's limit a 413 before it is read), answered with the job's resource to poll."""

from __future__ import annotations

from django import forms
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import generics, serializers
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from studies.files import image_response
from studies.forms import ImportForm
from studies.importing import job as imports
from studies.models import ImportJob, Item, ItemQuota
from studies.selectors import CHECK_CHOICES, EXAMPLE_CHOICES, ItemFilters, items_search, study_for_user

from .base import AnyAccept, CursorPage, UploadLimited
from .jobs import JobSerializer, job_response
from .validation import form_cleaned

ITEM_COLUMNS = (
    "id", "study_id", "external_id", "country", "prompt", "caption", "texts", "candidates", "model_name",
    "category", "metadata", "image", "width", "height", "is_example", "check_kind", "created_at",
)
PROBLEMS_SHOWN = 100  # a refused file's problems in a job's resource (``problems_count``: all of them)
REFUSED = "400: a filter or a field refused, each named with its messages."


class OldestFirst(CursorPage):
    ordering = "pk"


# --- what is shown -------------------------------------------------------------------------------


class ItemDocumentSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    title = serializers.CharField()
    url = serializers.CharField(help_text="Blank when the document has no address.")
    text = serializers.CharField()


class ItemImageSerializer(serializers.Serializer):
    position = serializers.IntegerField(help_text="Its number in the item: what an answer names it by.")
    model = serializers.CharField(source="model_name", help_text="The model that made it.")
    params = serializers.JSONField(help_text="Its seed and generation parameters, as imported.")
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    sha256 = serializers.CharField()
    url = serializers.SerializerMethodField(help_text="Its address (with your token).")

    @extend_schema_field(serializers.URLField())
    def get_url(self, image) -> str:
        address = reverse("api:item-image", args=[image.item.study_id, image.item_id])
        return self.context["request"].build_absolute_uri(f"{address}?n={image.position}")


class ItemQuotaSerializer(serializers.Serializer):
    pool = serializers.IntegerField(help_text="The pool's id.")
    country = serializers.CharField()
    done = serializers.IntegerField()
    wanted = serializers.IntegerField()


class ItemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    external_id = serializers.CharField(help_text="The item's id in your own data (the import's `id`).")
    country = serializers.CharField()
    prompt = serializers.CharField()
    caption = serializers.CharField()
    texts = serializers.JSONField(help_text="Further named texts, as stored.")
    candidates = serializers.JSONField(help_text='Texts to choose among: [{"id": …, "text": …}, …].')
    model = serializers.CharField(source="model_name")
    category = serializers.CharField()
    metadata = serializers.JSONField(help_text="The item's other attributes, as imported.")
    is_example = serializers.BooleanField(help_text="A practice example: never assigned.")
    check_kind = serializers.CharField(help_text="attention, gold, or blank for an ordinary item")
    width = serializers.IntegerField(allow_null=True)
    height = serializers.IntegerField(allow_null=True)
    image_url = serializers.SerializerMethodField(help_text="The image's address (with your token); null without one.")
    documents = ItemDocumentSerializer(many=True, source="document_rows")
    images = ItemImageSerializer(many=True, source="image_rows",
                                 help_text="A comparison's several images (2–8), by position; empty otherwise.")
    quotas = ItemQuotaSerializer(many=True, source="quota_rows", help_text="Annotations done and wanted, per pool.")
    created_at = serializers.DateTimeField()

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_image_url(self, item: Item) -> str | None:
        if not item.image:
            return None
        return self.context["request"].build_absolute_uri(reverse("api:item-image", args=[item.study_id, item.pk]))


def with_quotas(items: list[Item]) -> list[Item]:
    """``quota_rows`` of each item: its quotas with their pool's country (one query for them all)."""
    rows: dict[int, list[dict]] = {item.pk: [] for item in items}
    quotas = ItemQuota.objects.filter(item_id__in=list(rows)).order_by("item_id", "pool_id").values_list(
        "item_id", "pool_id", "pool__country", "done", "wanted")
    for item_id, pool_id, country, done, wanted in quotas:
        rows[item_id].append({"pool": pool_id, "country": country, "done": done, "wanted": wanted})
    for item in items:
        item.quota_rows = rows[item.pk]
        item.document_rows = list(item.documents.all())  # prefetched with the page
        item.image_rows = list(item.images.all())
    return items


class ItemFilterForm(forms.Form):
    """The item page's choices of ``example`` and ``check``: a value it does not offer is refused here
    (the page ignores it); the filtering itself is ``ItemFilters``'."""

    example = forms.ChoiceField(required=False, choices=[("", "any"), *((c, c) for c in EXAMPLE_CHOICES)])
    check = forms.ChoiceField(required=False, choices=[("", "any"), *((c, c) for c in CHECK_CHOICES)])


ITEM_FILTERS = [
    OpenApiParameter("q", str, description="An item's id exactly, or a part of its prompt."),
    OpenApiParameter("country", str, description="ISO 3166-1 alpha-2 code, e.g. IN."),
    OpenApiParameter("model", str, description="The model that made the item, exactly."),
    OpenApiParameter("category", str, description="The item's category, exactly."),
    OpenApiParameter("example", str, enum=list(EXAMPLE_CHOICES), description="Practice examples only, or none."),
    OpenApiParameter("check", str, enum=list(CHECK_CHOICES), description="Attention checks, gold items, or neither."),
]


# --- the items -----------------------------------------------------------------------------------


class ItemList(generics.ListAPIView):
    """The study's items in import order, searched and filtered as on the items page."""

    serializer_class = ItemSerializer
    pagination_class = OldestFirst

    def get_queryset(self):
        study = study_for_user(self.request.user, self.kwargs["pk"])
        form_cleaned(ItemFilterForm(self.request.query_params))
        filters = ItemFilters.from_query(self.request.query_params)
        return items_search(study=study, filters=filters).only(*ITEM_COLUMNS).prefetch_related("documents", "images")

    def paginate_queryset(self, queryset):
        return with_quotas(super().paginate_queryset(queryset) or [])

    @extend_schema(parameters=ITEM_FILTERS, responses={200: ItemSerializer(many=True), 400: OpenApiResponse(
        OpenApiTypes.OBJECT, description=REFUSED)})
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)


class ItemDetail(generics.GenericAPIView):
    serializer_class = ItemSerializer

    def get(self, request: Request, pk: int, item_id: int) -> Response:
        study = study_for_user(request.user, pk)
        item = get_object_or_404(study.items.only(*ITEM_COLUMNS).prefetch_related("documents", "images"), pk=item_id)
        return Response(ItemSerializer(with_quotas([item])[0], context={"request": request}).data)


# --- imports -------------------------------------------------------------------------------------


class ImportJobSerializer(JobSerializer):
    rows_name = serializers.CharField()
    images_name = serializers.CharField(help_text="Blank when no images were sent.")
    created_items = serializers.IntegerField()
    summary = serializers.CharField(help_text="What was imported (blank until done).")
    problems = serializers.SerializerMethodField(
        help_text=f"The refused file's problems, each naming its line (the first {PROBLEMS_SHOWN}).")
    problems_count = serializers.SerializerMethodField()

    def get_url(self, job) -> str:
        return self.context["request"].build_absolute_uri(import_path(job))

    def get_problems(self, job) -> list[str]:
        return [str(p) for p in (job.problems or [])[:PROBLEMS_SHOWN]]

    def get_problems_count(self, job) -> int:
        return len(job.problems or [])


class ImportUploadSerializer(serializers.Serializer):
    rows = serializers.FileField(help_text="The items: a .csv or .jsonl file.")
    images = serializers.FileField(required=False, help_text="The images the rows name: one .zip file.")


def import_path(job: ImportJob) -> str:
    return reverse("api:import-detail", args=[job.study_id, job.pk])


class ImportList(UploadLimited, generics.ListAPIView):
    """The study's imports, newest first."""

    serializer_class = ImportJobSerializer

    upload_limit = staticmethod(imports.upload_limit)

    def get_queryset(self):
        study = study_for_user(self.request.user, self.kwargs["pk"])
        return study.import_jobs.defer("rows_file", "images_file")

    @extend_schema(
        request={"multipart/form-data": ImportUploadSerializer},
        responses={202: ImportJobSerializer},
    )
    def post(self, request: Request, pk: int) -> Response:
        """Import items as the import page does: the rows checked and written whole or not at all by a
        job (202: poll its ``url``); the wrong kind of file, or one past its limit, a 400 naming it."""
        study = study_for_user(request.user, pk, write=True)
        unknown = {key: ["Unknown field."] for key in request.data if key not in ImportForm.base_fields}
        cleaned = form_cleaned(ImportForm(request.data, request.FILES), unknown)
        try:
            job = imports.import_start(study=study, user=request.user, rows=cleaned["rows"], images=cleaned["images"])
        except imports.ImportRefused as refused:
            raise ValidationError({refused.field: [str(refused)]}) from None
        return job_response(request, job, ImportJobSerializer, import_path(job), started=True)


class ImportDetail(generics.GenericAPIView):
    serializer_class = ImportJobSerializer

    def get(self, request: Request, pk: int, job_id: int) -> Response:
        """An import: poll it until ``status`` is done (``created_items``, ``summary``) or failed
        (``error`` and the file's ``problems``)."""
        study = study_for_user(request.user, pk)
        job = get_object_or_404(study.import_jobs.defer("rows_file", "images_file"), pk=job_id)
        return job_response(request, job, ImportJobSerializer, import_path(job))


class ItemImage(generics.GenericAPIView):
    content_negotiation_class = AnyAccept

    @extend_schema(
        parameters=[OpenApiParameter(
            "n", int, required=False, description="One of a comparison's images, by its position (1–8).")],
        responses={
            (200, "image/*"): OpenApiResponse(OpenApiTypes.BINARY, description="The item's image, as stored."),
            302: OpenApiResponse(description="On a remote storage (S3): a short-lived signed address of the image."),
        },
    )
    def get(self, request: Request, pk: int, item_id: int):
        """The item's image (the items page's own), or with ``n`` one of its several images: 404 when
        it has none."""
        item = get_object_or_404(study_for_user(request.user, pk).items.only("image"), pk=item_id)
        position = request.query_params.get("n", "")
        image = item.image_at(position)
        if image is None:
            raise NotFound(f"This item has no image {position}." if position else "This item has no image.")
        return image_response(image)


urlpatterns = [
    path("api/v1/studies/<int:pk>/items/", ItemList.as_view(), name="item-list"),
    path("api/v1/studies/<int:pk>/items/<int:item_id>/", ItemDetail.as_view(), name="item-detail"),
    path("api/v1/studies/<int:pk>/items/<int:item_id>/image/", ItemImage.as_view(), name="item-image"),
    path("api/v1/studies/<int:pk>/imports/", ImportList.as_view(), name="import-list"),
    path("api/v1/studies/<int:pk>/imports/<int:job_id>/", ImportDetail.as_view(), name="import-detail"),
]
