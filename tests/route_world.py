"""The world of the route × role matrix (tests/test_route_roles.py): the fixed cast around one built
study, with every kind of object its addresses name, and each role's browser cookies."""

import uuid
from dataclasses import dataclass, field

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.auth.models import Group
from django.contrib.contenttypes.models import ContentType
from django.core.files.base import ContentFile
from django.test import Client

from analysis.models import AnalysisRun, MetricUpload
from annotation.links import item_image_link
from annotation.models import Checker, ReviewTarget
from api.tokens import api_token_create
from exports.models import ExportJob
from recruitment.models import (
    BlockedParticipant,
    ParticipantGroup,
    ProlificAction,
    ProlificBonus,
    ProlificJob,
    ProlificStudy,
    ProlificSubmission,
)
from studies.members import invitation_create
from studies.models import ImportJob, StudyMember
from studies.services import RESEARCHER_GROUP
from tests import factories as f
from tests.helpers import as_annotator, review

# The roles, in the order of a row of the matrix's ``KINDS``: a visitor who is not logged in, the
# study's owner, another researcher (who owns a study of their own), a viewer and an editor of the
# study, a checker of its India pool, an annotator of the India pool and one of its Japan pool (each
# with their browser's cookie).
ROLES = ("anonymous", "owner", "other", "viewer", "editor", "checker", "annotator", "stranger")


@dataclass
class World:
    values: dict = field(default_factory=dict)  # what an address names, by parameter or by name
    cookies: dict = field(default_factory=dict)  # role: the cookies of their browser
    media: str = ""


def metric_upload(study, item) -> MetricUpload:
    """A stored upload of one score, as ``metric_upload_create`` leaves it: the file and its parse."""
    upload = MetricUpload(study=study, original_name="metrics.csv", rows=1, metrics=["clip"])
    score = f"{item.external_id},IN,clip,0.5\n"
    upload.file.save("metrics.csv", ContentFile(f"item,country,metric,score\n{score}".encode()), save=False)
    upload.scores_file.save(
        "scores.csv", ContentFile(f"external_id,country,metric,score\n{score}".encode()), save=False)
    upload.save()
    return upload


def build_world(media: str) -> World:
    """A built study: an India pool with annotations, reviews, uploads and a checker, a Japan pool
    with its own, an annotator of each holding an item, a viewer and an editor, an invitation, jobs
    of every kind, a pool on Prolific with a submission, a job and a bonus; what each address names."""
    owner, other = f.make_researcher("owner"), f.make_researcher("other")
    others_study = f.make_study(other, name="Another researcher's study")
    study = f.make_study(owner)
    pool, other_pool = f.make_pool(study, "IN", "India"), f.make_pool(study, "JP", "Japan")
    items = f.make_items(study, "IN", 3) + f.make_items(study, "JP", 2)
    question = f.make_mock_question(study)
    annotator, assignment = f.make_leased(pool)
    stranger, _ = f.make_leased(other_pool)
    annotation, other_annotation = f.annotate_pool(pool)[0], f.annotate_pool(other_pool)[0]
    checker = f.make_checker(pool, "checker-in")
    reviewed = review(f.annotate_pool(pool)[0], checker, "accepted")
    viewer, editor = f.make_member(study, "viewer", "viewer"), f.make_member(study, "editor", "editor")
    invitation, invitation_token = invitation_create(study=study, email="new@example.org", role="viewer", by=owner)
    run = AnalysisRun.objects.create(study=study)
    export = ExportJob.objects.create(study=study, analysis=run, status=ExportJob.Status.DONE)
    export.file.save("export.csv", ContentFile(b"item\n"))
    prolific = ProlificStudy.objects.create(
        pool=pool, reference=f"ref-{uuid.uuid4()}", prolific_id="P1", places=5, reward=150, estimated_minutes=10
    )
    submission = ProlificSubmission.objects.create(
        prolific_study=prolific, prolific_id="S1", participant_id="PID1",
        status=ProlificSubmission.Status.AWAITING_REVIEW,
    )
    bonus = ProlificBonus.objects.create(prolific_study=prolific, lines=[{"who": "PID1", "amount": 100}], amount=100)
    attempt = {"user_agent": "test", "ip_address": "10.0.0.1", "username": "owner", "http_accept": "*/*",
               "path_info": "/login/"}
    values = {
        # the parameters of the study's addresses
        "pk": study.pk,
        "pool_pk": pool.pk,
        "item_pk": items[0].pk,
        "annotator_pk": annotation.annotator_id,
        "annotation_pk": annotation.pk,
        "token": f.make_upload(annotation.assignment).token,
        "run_pk": run.pk,
        "member_pk": StudyMember.objects.get(user=viewer).pk,
        "checker_pk": Checker.objects.get(user=checker).pk,
        "invitation_pk": invitation.pk,
        "sub_pk": submission.pk,
        "bonus_pk": bonus.pk,
        "question_pk": question.pk,
        "position": 1,
        "step": "setup",
        "verb": "pause",
        "language": "ja",
        "key": pool.entry_key,
        "invitation": invitation_token,
        # named by a route's ``args``
        "assignment": assignment.pk,
        "image_link": item_image_link(assignment).rsplit("/", 1)[1],
        "own_upload": f.make_upload(assignment).token,
        "example": question.item_id,
        "preset": "culturalframes-rating",
        "import_job": ImportJob.objects.create(study=study, rows_name="rows.csv").pk,
        "export_job": export.pk,
        "metric_upload": metric_upload(study, items[0]).pk,
        "prolific_job": ProlificJob.objects.create(
            study=study, prolific_study=prolific, kind=ProlificAction.Kind.SUBMISSIONS
        ).pk,
        "other_pool": other_pool.pk,
        "other_annotation": other_annotation.pk,
        "other_upload": f.make_upload(other_annotation.assignment).token,
        "study_type": ContentType.objects.get_for_model(study).pk,
        "study": study.pk,
        "others_study": others_study.pk,
        "api_token": api_token_create(user=owner, name="a script")[0].pk,
        # rounds: the owner's participant group and a participant on their block list
        "group_pk": ParticipantGroup.objects.create(owner=owner, name="Round 1 top", source_study=study).pk,
        "blocked_pid": BlockedParticipant.objects.create(
            owner=owner, participant_id="PID9", reason="spam").participant_id,
        # the object of each admin model
        "studies.study": study.pk,
        "studies.countrypool": pool.pk,
        "studies.item": items[0].pk,
        "annotation.annotator": annotator.pk,
        "annotation.session": annotator.sessions.get().pk,
        "annotation.assignment": assignment.pk,
        "annotation.annotation": annotation.pk,
        "annotation.review": reviewed.review.pk,
        "annotation.checker": Checker.objects.get(user=checker).pk,
        "annotation.reviewtarget": ReviewTarget.objects.create(pool=pool, percent=20).pk,
        "auth.user": checker.pk,
        "auth.group": Group.objects.get(name=RESEARCHER_GROUP).pk,
        "axes.accessattempt": AccessAttempt.objects.create(
            **attempt, get_data="", post_data="", failures_since_start=1).pk,
        "axes.accesslog": AccessLog.objects.create(**attempt).pk,
        "axes.accessfailurelog": AccessFailureLog.objects.create(**attempt).pk,
    }
    world = World(values=values, media=media)
    users = {"owner": owner, "other": other, "viewer": viewer, "editor": editor, "checker": checker}
    for role in ROLES:
        client = Client()
        if role in users:
            client.force_login(users[role])
        elif role in ("annotator", "stranger"):
            as_annotator(client, (annotator if role == "annotator" else stranger).sessions.get())
        world.cookies[role] = {name: morsel.value for name, morsel in client.cookies.items()}
    return world
