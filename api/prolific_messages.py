"""A study's Prolific messages over the API (/api/v1/studies/{id}/prolific/messages/): send one to a
participant of a pool's study or to all of them, and read those received in the last 30 days.

The owner's only, as on the study's Prolific page (``participants_study_for_user``: a member 403,
anyone else 404): the messages name participants' Prolific ids and go out with the owner's token.
The body is checked by the page's ``MessageForm`` (its messages, a 400 naming the field) and sent by
the page's service (``prolific_message_send``); a participant who took no part in the pool's study
is a 400 naming ``participant``, a pool not on Prolific a 409, Prolific's refusal a 502. A message
is never sent twice by the platform: a 502 may mean Prolific got it (its message says)."""

from __future__ import annotations

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from recruitment.forms import MessageForm
from recruitment.services.messages import MessageRefused, prolific_message_send, prolific_messages_received

from . import prolific_serializers as s
from .prolific import REFUSED, STUDY, Refusals, participants_study, pool_chosen
from .validation import form_cleaned, typed


class MessageList(Refusals, generics.GenericAPIView):
    serializer_class = s.MessageSerializer
    pagination_class = None  # Prolific's last 30 days, read whole (as the page shows them)

    @extend_schema(responses={200: s.MessageSerializer(many=True), **REFUSED})
    def get(self, request: Request, pk: int) -> Response:
        """The messages of the last 30 days about the study's Prolific studies, newest first (asked of
        Prolific on each call; an empty list when no pool is on Prolific)."""
        study = participants_study(request, pk)
        received = prolific_messages_received(study=study, user=request.user)
        return Response(s.MessageSerializer(received, many=True).data)

    @extend_schema(request=s.MessageSendSerializer, responses={200: s.MessageSentSerializer, **REFUSED})
    def post(self, request: Request, pk: int) -> Response:
        """Send a message to ``participant`` of the pool's study, or without one to every participant
        of it (Prolific's bulk message, in chunks of 4,000). Nothing is sent when a rule refuses it."""
        study = participants_study(request, pk)
        given = typed(s.MessageSendSerializer, request.data)
        (pool,) = pool_chosen(study, given["pool"]) or ()
        participant = given.get("participant", "").strip()
        form = MessageForm({"pool": pool.pk, "participant": participant, "body": given["body"]},
                           pools=study.pools.all())
        cleaned = form_cleaned(form)
        try:
            result = prolific_message_send(pool=pool, user=request.user, body=cleaned["body"],
                                           participant_id=participant)
        except MessageRefused as refused:
            if refused.field:
                raise ValidationError({refused.field: [str(refused)]}) from None
            raise
        return Response(s.MessageSentSerializer(result).data)


urlpatterns = [
    path(f"{STUDY}messages/", MessageList.as_view(), name="prolific-messages"),
]
