"""Every researcher's study page × every role, GET and POST.

The study routes are found by resolving the URLconf (every pattern under ``studies/<int:pk>`` or
``prolific/studies/<int:pk>``), so a new route fails ``test_every_study_route_is_in_the_matrix``
until its expectations are written in ``MATRIX``. Each route says, per method, what it is:

- READ: every member reads it (viewer, editor, owner);
- WRITE: it changes the study: a viewer gets 403 ("read-only"), an editor and the owner may;
- OWNER: the owner's only (members, Prolific: the owner's token and money): 403 for every member;
- REVIEW: the quality check: the owner, an editor and the pool's checkers; a viewer gets 404.

Whatever the route, a visitor who is not logged in (an annotator with their cookie too) is sent to
the login page, and another researcher gets 404 (another's study does not exist for them). Each
request runs in a transaction rolled back after it, so every role meets the same study.
"""

import re
import uuid

import pytest
from django.core.files.base import ContentFile
from django.db import transaction
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from analysis.models import AnalysisRun, ImportJob
from annotation.models import Checker, Upload
from exports.models import ExportJob
from recruitment.models import ProlificAction, ProlificBonus, ProlificJob, ProlificStudy, ProlificSubmission
from studies.models import StudyInvitation, StudyMember
from tests import factories as f
from tests.helpers import as_annotator, login

READ, WRITE, OWNER, REVIEW = "read", "write", "owner", "review"

MATRIX: dict[str, dict[str, str]] = {
    # studies
    "studies:item-list": {"GET": READ},
    "studies:study-settings": {"GET": READ, "POST": WRITE},
    "studies:study-status": {"POST": WRITE},
    "studies:study-delete": {"POST": OWNER},
    "studies:pool-list": {"GET": READ},
    "studies:pool-add": {"GET": READ, "POST": WRITE},
    "studies:pool-edit": {"GET": READ, "POST": WRITE},
    "studies:item-image": {"GET": READ},
    "studies:members": {"GET": READ},
    "studies:protocol-edit": {"GET": READ, "POST": WRITE},
    "studies:protocol-check": {"POST": READ},  # a check of typed text: nothing is stored
    "studies:practice": {"GET": READ},
    "studies:practice-add": {"GET": READ, "POST": WRITE},
    "studies:practice-edit": {"GET": READ, "POST": WRITE},
    "studies:practice-delete": {"POST": WRITE},
    "studies:practice-attempts": {"POST": WRITE},
    "studies:practice-example": {"POST": WRITE},
    "studies:member-role": {"POST": OWNER},
    "studies:member-remove": {"POST": OWNER},
    "studies:invitation-revoke": {"POST": OWNER},
    # analysis
    "analysis:study-dashboard": {"GET": READ},
    "analysis:study-progress": {"GET": READ},
    "analysis:pool-annotators": {"GET": READ},
    "analysis:annotator-block": {"POST": WRITE},
    "analysis:annotator-unblock": {"POST": WRITE},
    "analysis:analysis": {"GET": READ, "POST": WRITE},
    "analysis:analysis-status": {"GET": READ},
    "analysis:analysis-result": {"GET": READ},
    "analysis:metrics-upload": {"POST": WRITE},
    "analysis:import-items": {"GET": READ, "POST": WRITE},
    "analysis:import-status": {"GET": READ},
    # exports
    "exports:export-start": {"POST": WRITE},
    "exports:export-status": {"GET": READ},
    "exports:export-cancel": {"POST": WRITE},
    "exports:export-download": {"GET": READ},
    "exports:export-manifest": {"GET": READ},
    # recruitment (Prolific: what calls it is the owner's)
    "recruitment:study-prolific": {"GET": READ},
    "recruitment:study-webhooks": {"POST": OWNER},
    "recruitment:study-policy": {"POST": WRITE},
    "recruitment:study-launch": {"POST": OWNER},
    "recruitment:pool-preview": {"GET": OWNER},
    "recruitment:review": {"GET": READ},
    "recruitment:review-refresh": {"POST": OWNER},
    "recruitment:review-approve": {"POST": OWNER},
    "recruitment:review-reject": {"GET": READ, "POST": OWNER},
    "recruitment:review-return": {"GET": READ, "POST": OWNER},
    "recruitment:review-job": {"GET": READ},
    "recruitment:bonus-new": {"GET": READ, "POST": OWNER},
    "recruitment:bonus": {"GET": READ},
    "recruitment:bonus-send": {"POST": OWNER},
    "recruitment:study-transition": {"POST": OWNER},
    "recruitment:pool-remove": {"GET": WRITE, "POST": WRITE},  # the pool stays while on Prolific (as here)
    # annotation: the researcher's item page, the members page's invite and checkers, the quality check
    "annotation:study-item": {"GET": READ},
    # previews keep their state in the researcher's own browser session: nothing of the study changes
    "annotation:protocol-preview": {"POST": READ},
    "annotation:path-preview": {"GET": READ},
    "annotation:path-preview-consent": {"GET": READ, "POST": READ},
    "annotation:path-preview-eligibility": {"GET": READ, "POST": READ},
    "annotation:path-preview-instructions": {"GET": READ, "POST": READ},
    "annotation:path-preview-mock": {"GET": READ, "POST": READ},
    "annotation:path-preview-items": {"GET": READ},
    "annotation:path-preview-item-submit": {"POST": READ},
    "annotation:path-preview-item-draft": {"POST": READ},
    "annotation:path-preview-item-upload": {"POST": READ},
    "annotation:path-preview-end": {"GET": READ},
    "annotation:member-invite": {"POST": OWNER},
    "annotation:checker-remove": {"POST": OWNER},
    "annotation:review-study": {"GET": REVIEW},
    "annotation:review-pool": {"GET": REVIEW},
    "annotation:review-target": {"POST": WRITE},
    "annotation:review-submit": {"POST": REVIEW},
    "annotation:review-image": {"GET": REVIEW},
    "annotation:review-upload-image": {"GET": REVIEW},
}

ROLES = ["anonymous", "annotator", "other", "viewer", "editor", "owner"]
ALLOWED = {
    "viewer": {READ},
    "editor": {READ, WRITE, REVIEW},
    "owner": {READ, WRITE, OWNER, REVIEW},
}
STUDY_ROUTE = re.compile(r"^(prolific/)?studies/<int:pk>")


def study_routes() -> dict[str, str]:
    """Every named URL pattern of a study's pages: {namespaced name: route}."""
    found = {}

    def walk(patterns, prefix: str, namespace: str) -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                inner = ":".join(filter(None, [namespace, p.namespace]))
                walk(p.url_patterns, prefix + str(p.pattern), inner)
            elif isinstance(p, URLPattern) and STUDY_ROUTE.match(prefix + str(p.pattern)):
                found[f"{namespace}:{p.name}" if namespace else str(p.name)] = prefix + str(p.pattern)

    walk(get_resolver().url_patterns, "", "")
    return found


def test_every_study_route_is_in_the_matrix():
    routes = study_routes()
    assert set(routes) - set(MATRIX) == set(), "a study route without expectations: add it to MATRIX"
    assert set(MATRIX) - set(routes) == set(), "MATRIX names a route that no longer exists"


@pytest.fixture
def world(owner, study, pool, items, checker, settings):
    """A built study: a pool with items and annotations, an annotator's session, a viewer and an
    editor, a checker, an invitation, jobs of every kind, a pool on Prolific with a submission, a
    job and a bonus; what each route's address names."""
    settings.PROLIFIC_API_TOKEN = ""
    annotation = f.annotate_pool(pool)[0]
    upload = Upload.objects.create(
        study=study, assignment=annotation.assignment, file=ContentFile(f.png_bytes(), name="u.png"),
        suffix=".png", original_name="u.png", width=64, height=48, sha256="0" * 64,
    )
    viewer = f.make_member(study, "viewer", "viewer")
    editor = f.make_member(study, "editor", "editor")
    invitation = StudyInvitation.objects.create(
        study=study, email="new@example.org", role="viewer", token_hash="1" * 64, expires_at="2999-01-01T00:00Z"
    )
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
    values = {
        "pk": study.pk,
        "pool_pk": pool.pk,
        "item_pk": items[0].pk,
        "annotator_pk": annotation.annotator_id,
        "annotation_pk": annotation.pk,
        "token": upload.token,
        "run_pk": run.pk,
        "member_pk": StudyMember.objects.get(user=viewer).pk,
        "checker_pk": Checker.objects.get(user=checker).pk,
        "invitation_pk": invitation.pk,
        "sub_pk": submission.pk,
        "bonus_pk": ProlificBonus.objects.create(
            prolific_study=prolific, lines=[{"who": "PID1", "amount": 100}], amount=100
        ).pk,
        "question_pk": f.make_mock_question(study).pk,
        "position": 1,
        "step": "setup",
        "verb": "pause",
    }
    jobs = {
        "analysis": ImportJob.objects.create(study=study, rows_name="rows.csv").pk,
        "exports": export.pk,
        "recruitment": ProlificJob.objects.create(
            study=study, prolific_study=prolific, kind=ProlificAction.Kind.SUBMISSIONS
        ).pk,
    }
    session = f.make_session(annotation.annotator)
    return {"values": values, "jobs": jobs, "session": session, "viewer": viewer, "editor": editor}


def url_of(name: str, route: str, world) -> str:
    kwargs = {}
    for key in re.findall(r"<(?:\w+:)?(\w+)>", route):
        kwargs[key] = world["jobs"][name.split(":")[0]] if key == "job_pk" else world["values"][key]
    return reverse(name, kwargs=kwargs)


def client_as(role: str, client, request, world):
    if role == "annotator":
        return as_annotator(client, world["session"])
    if role in ("viewer", "editor"):
        return login(client, world[role])
    if role == "other":
        return login(client, request.getfixturevalue("other_researcher"))
    if role == "owner":
        return login(client, request.getfixturevalue("owner"))
    return client


def expected(role: str, kind: str) -> str:
    if role in ("anonymous", "annotator"):
        return "login"
    if role == "other":
        return "404"
    if kind in ALLOWED[role]:
        return "ok"
    return "404" if kind == REVIEW else "403"


def outcome(response) -> str:
    if response.status_code == 302 and response["Location"].startswith("/login/"):
        return "login"
    if response.status_code in (403, 404, 405):
        return str(response.status_code)
    assert response.status_code < 500
    return "ok"


@pytest.mark.parametrize("name", sorted(MATRIX))
def test_route_by_role(name, world, client, request, django_user_model):
    route = study_routes()[name]
    url = url_of(name, route, world)
    got, wanted = {}, {}
    for method, kind in MATRIX[name].items():
        for role in ROLES:
            client.logout()
            client.cookies.clear()
            client_as(role, client, request, world)
            with transaction.atomic():
                response = client.get(url) if method == "GET" else client.post(url)
                transaction.set_rollback(True)
            got[method, role] = outcome(response)
            wanted[method, role] = expected(role, kind)
    assert got == wanted, url


def test_a_viewers_refusal_says_the_role_is_read_only(client, world):
    login(client, world["viewer"])
    response = client.post(reverse("studies:pool-add", args=[world["values"]["pk"]]), {"country": "FR"})
    assert response.status_code == 403
    assert "Your role on this study is read-only" in response.content.decode()
