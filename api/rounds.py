"""Rounds over the API (``recruitment.services.rounds``): the researcher's participant groups (listed,
one read with its members, a new one invited back from a study of theirs, or its count previewed) and
their block list (listed, one added with a reason, one removed).

Both are per account, as on the pages: a group or a blocked participant is its researcher's alone
(anyone else's is a 404), and only they ever see the Prolific ids in it. The invite-back is the
study's owner's (``study_for_user(owner_only=True)``: a member 403, anyone else 404): it uses their
Prolific token. Input is checked by the pages' forms (``InviteBackForm``, ``BlockForm``) with their
messages, the change is the pages' service; a refusal of the state (nobody meets the bar, the name
taken by another study's group, no Prolific token) is a 409, Prolific's a 502."""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import generics, serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from recruitment.forms import BlockForm, InviteBackForm
from recruitment.models import BlockedParticipant, ParticipantGroup
from recruitment.services import RecruitmentRefused, rounds
from studies.selectors import study_for_user

from .prolific import REFUSED, Refusals
from .prolific_serializers import ID
from .validation import form_cleaned, typed

PREVIEW_NAME = "preview"  # the name a preview without one is checked with (a preview makes nothing)


# --- what is shown ---------------------------------------------------------------------------


class BarSerializer(serializers.Serializer):
    min_quality = serializers.FloatField(allow_null=True, help_text="Least quality score (MACE competence), 0–1.")
    min_gold = serializers.FloatField(allow_null=True, help_text="Least gold accuracy, 0–1.")
    no_exclusions = serializers.BooleanField(help_text="Only annotators never excluded nor blocked.")


class GroupSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    study = serializers.IntegerField(source="source_study_id", allow_null=True,
                                     help_text="The study its members were drawn from (null once deleted).")
    bar = serializers.SerializerMethodField(help_text="The bar its members met.")
    prolific_id = serializers.CharField(help_text="Blank until Prolific made it: post the same invite-back again.")
    members = serializers.IntegerField(source="members_n", help_text="How many participants it holds.")
    created_at = serializers.DateTimeField()
    synced_at = serializers.DateTimeField(allow_null=True, help_text="When its members were last sent to Prolific.")
    url = serializers.SerializerMethodField(help_text="This group's address.")

    @extend_schema_field(BarSerializer)
    def get_bar(self, group: ParticipantGroup) -> dict:
        bar = rounds.Bar(**{k: v for k, v in (group.bar or {}).items() if k in BarSerializer().fields})
        return BarSerializer(bar.as_json()).data

    def get_url(self, group: ParticipantGroup) -> str:
        return self.context["request"].build_absolute_uri(reverse("api:participant-group", args=[group.pk]))


class MemberSerializer(serializers.Serializer):
    participant_id = serializers.CharField(help_text="Their Prolific id (shown to the group's researcher only).")
    on_prolific = serializers.BooleanField(help_text="Whether Prolific has them in the group yet.")


class GroupDetailSerializer(GroupSerializer):
    participants = serializers.SerializerMethodField(help_text="Its members, by Prolific id.")

    @extend_schema_field(MemberSerializer(many=True))
    def get_participants(self, group: ParticipantGroup) -> list[dict]:
        rows = group.members.order_by("participant_id").values_list("participant_id", "added_at")
        return [{"participant_id": pid, "on_prolific": added is not None} for pid, added in rows]


class PreviewSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="How many annotators meet the bar (the group's size).")
    annotators = serializers.IntegerField(help_text="How many of the study's annotators were scored.")


class BlockedSerializer(serializers.ModelSerializer):
    blocked_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)

    class Meta:
        model = BlockedParticipant
        fields = ("participant_id", "reason", "blocked_by", "created_at")
        read_only_fields = fields


# --- what is taken (types only: the pages' forms check the rules) ------------------------------


class InviteBackSerializer(serializers.Serializer):
    study = serializers.IntegerField(help_text="A study of yours whose annotators are invited back.", **ID)
    name = serializers.CharField(required=False, allow_blank=True, help_text="The group's name, as Prolific shows it "
                                 "(needed unless `preview`).")
    min_quality = serializers.FloatField(required=False, allow_null=True)
    min_gold = serializers.FloatField(required=False, allow_null=True)
    no_exclusions = serializers.BooleanField(required=False, default=True)
    preview = serializers.BooleanField(
        required=False, default=False, help_text="Only count who meets the bar (200); nothing is made.")


class BlockSerializer(serializers.Serializer):
    participant_id = serializers.CharField(allow_blank=True, help_text="A Prolific participant id.")
    reason = serializers.CharField(allow_blank=True, help_text="Why they are blocked (kept with the entry).")


# --- the views ---------------------------------------------------------------------------------


def form_value(value: object) -> str:
    return "" if value is None else str(value)


class GroupList(Refusals, generics.ListAPIView):
    """Your participant groups (invited back from your studies), newest first, with their member counts."""

    serializer_class = GroupSerializer

    def get_queryset(self) -> QuerySet[ParticipantGroup]:
        return rounds.groups_of(user=self.request.user)

    @extend_schema(
        request=InviteBackSerializer,
        responses={
            200: OpenApiResponse(PreviewSerializer, description="`preview`: how many meet the bar."),
            201: GroupDetailSerializer, **REFUSED,
            404: OpenApiResponse({"$ref": "#/components/schemas/Error"},  # api/schema.py's
                                 description="`study` is not one of yours (nor one you may see)."),
        },
    )
    def post(self, request: Request) -> Response:
        """Invite a study's annotators who meet the bar back as a participant group on Prolific (the
        invite-back page's checks and messages), or with `preview` only count them. Posting the same
        study, bar and name again duplicates nothing and finishes a run that failed half-way."""
        given = typed(InviteBackSerializer, request.data)
        study = study_for_user(request.user, given["study"], owner_only=True)
        preview = given["preview"]
        form = InviteBackForm({
            "name": given.get("name") or (PREVIEW_NAME if preview else ""),
            "min_quality": form_value(given.get("min_quality")),
            "min_gold": form_value(given.get("min_gold")),
            "no_exclusions": "on" if given["no_exclusions"] else "",
        })
        cleaned = form_cleaned(form)
        found = rounds.invite_preview(study=study, bar=form.bar())
        if preview:
            return Response(PreviewSerializer({"count": found.count, "annotators": found.annotators}).data)
        group = rounds.invite_back(study=study, bar=form.bar(), name=cleaned["name"], user=request.user,
                                   participant_ids=found.participant_ids)
        shown = rounds.group_for_user(user=request.user, pk=group.pk)
        data = GroupDetailSerializer(shown, context={"request": request}).data
        return Response(data, status=status.HTTP_201_CREATED, headers={"Location": data["url"]})


class GroupDetail(generics.GenericAPIView):
    serializer_class = GroupDetailSerializer

    def get(self, request: Request, group_id: int) -> Response:
        """One of your groups with its members' Prolific ids (anyone else's: 404)."""
        group = rounds.group_for_user(user=request.user, pk=group_id)
        return Response(GroupDetailSerializer(group, context={"request": request}).data)


class BlockedList(generics.ListAPIView):
    """Your block list, newest first: participants none of your launches recruits."""

    serializer_class = BlockedSerializer

    def get_queryset(self) -> QuerySet[BlockedParticipant]:
        return rounds.blocked_of(user=self.request.user).select_related("created_by")

    @extend_schema(request=BlockSerializer, responses={201: BlockedSerializer})
    def post(self, request: Request) -> Response:
        """Block a participant from every launch of yours, saying why (the block page's checks: a
        Prolific id, a reason; one already blocked is a 400 naming `participant_id`)."""
        cleaned = form_cleaned(BlockForm(typed(BlockSerializer, request.data)))
        try:
            row = rounds.participant_block(user=request.user, **cleaned)
        except RecruitmentRefused as refused:
            raise ValidationError({"participant_id": [str(refused)]}) from None
        return Response(BlockedSerializer(row).data, status=status.HTTP_201_CREATED)


PARTICIPANT = OpenApiParameter("participant_id", OpenApiTypes.STR, OpenApiParameter.PATH,
                               description="A Prolific participant id on your block list.")


class BlockedDetail(generics.GenericAPIView):
    serializer_class = BlockedSerializer

    def entry(self, request: Request, participant_id: str) -> BlockedParticipant:
        return get_object_or_404(rounds.blocked_of(user=request.user).select_related("created_by"),
                                 participant_id=participant_id)

    @extend_schema(parameters=[PARTICIPANT])
    def get(self, request: Request, participant_id: str) -> Response:
        """One participant of your block list (not on it: 404)."""
        return Response(BlockedSerializer(self.entry(request, participant_id)).data)

    @extend_schema(parameters=[PARTICIPANT], responses={204: None})
    def delete(self, request: Request, participant_id: str) -> Response:
        """Unblock: your next launches may recruit them again (not on your list: 404)."""
        self.entry(request, participant_id)
        rounds.participant_unblock(user=request.user, participant_id=participant_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


urlpatterns = [
    path("api/v1/participant-groups/", GroupList.as_view(), name="participant-groups"),
    path("api/v1/participant-groups/<int:group_id>/", GroupDetail.as_view(), name="participant-group"),
    path("api/v1/blocked-participants/", BlockedList.as_view(), name="blocked-participants"),
    path("api/v1/blocked-participants/<str:participant_id>/", BlockedDetail.as_view(), name="blocked-participant"),
]
