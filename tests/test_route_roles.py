"""Every route of the URLconf × every role of the cast, GET and POST.

The routes are found by walking the root URLconf (config/urls.py: the included apps and
``admin.site.get_urls()``), so a new route fails ``test_every_route_is_in_the_matrix`` until it is
classified in ``MATRIX`` (an admin model's six routes: in ``ADMIN_MODELS``). Each route says, per
method, its kind; a kind is one row of outcomes, one per role (``KINDS``). An outcome is "ok" (the
page answers: 2xx, 3xx elsewhere or a form's 4xx), a refusal ("login": sent to the login page,
"admin-login", "admin-index": the admin's "does not exist", "401", "403", "404", "405") or a 500,
which fails every case. A refused request writes nothing to the database.

Addresses that pair objects which do not belong together (an object of the study in the address of
another researcher's study, an annotation of the Japan pool in the India pool's quality check,
another assignment's upload) are in ``crossed_matrix``.

The cast and its study (tests/route_world.py) are built once for the module; each request runs in a
savepoint rolled back after it, with the role's cookies as they were, so every role meets the same
study.
"""

import functools
import re
from dataclasses import dataclass, field, replace
from http.cookies import SimpleCookie
from urllib.parse import urlsplit

import pytest
from django.contrib import admin
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse

from tests.route_world import ROLES, World, build_world

pytestmark = pytest.mark.django_db

KINDS: dict[str, list[str]] = {k: row.split() for k, row in {
    #               anonymous   owner       other       viewer      editor      checker     annotator   stranger
    # public: no account, or its own proof (a signature, a token, Prolific's ids); the webhook unsigned;
    # logging out, to the login page
    "public":       "ok          ok          ok          ok          ok          ok          ok          ok",
    "webhook":      "401         401         401         401         401         401         401         401",
    "logout":       "login       login       login       login       login       login       login       login",
    # an invitation sent to new@example.org: anyone without an account may sign up from it; an account
    # of another address is refused (none of the cast has that address)
    "invitation":   "ok          403         403         403         403         403         ok          ok",
    # any account's own page (their studies, their reviews, their Prolific token)
    "account":      "login       ok          ok          ok          ok          ok          login       login",
    # a researcher's page outside a study (staff accounts)
    "researcher":   "login       ok          ok          ok          ok          404         login       login",
    # a researcher's own row outside any study (their participant group): anyone else's does not exist
    "own-group":    "login       ok          404         404         404         404         login       login",
    # a study's pages: its members read, editors and the owner change, the owner alone manages
    "study-read":   "login       ok          404         ok          ok          404         login       login",
    "study-write":  "login       ok          404         403         ok          404         login       login",
    "study-owner":  "login       ok          404         403         403         404         login       login",
    # the quality check of the India pool: the owner, an editor and its checker; of the Japan pool
    "review":       "login       ok          404         404         ok          ok          login       login",
    "review-japan": "login       ok          404         404         ok          404         login       login",
    # an address naming what is not of its study (or pool, or annotation): nobody finds it
    "foreign":      "login       404         404         404         404         404         login       login",
    # the annotator's path: their browser's session (anyone else: "open the study from Prolific"); an
    # object of the India annotator's session; an object of neither (or no practice example)
    "annotator":    "403         403         403         403         403         403         ok          ok",
    "assignment":   "403         403         403         403         403         403         ok          404",
    "not-theirs":   "403         403         403         403         403         403         404         404",
    # the admin: staff accounts (researchers); a row is its owner's (members see none there: "admin-index",
    # the admin's "does not exist"); "evidence": a row its owner may not delete there (that would delete
    # collected data, which nobody may delete in the admin)
    "admin-login":  "ok          admin-index admin-index admin-index admin-index ok          ok          ok",
    "admin-logout": "admin-index login       login       login       login       admin-index admin-index admin-index",
    "staff":        "admin-login ok          ok          ok          ok          admin-login admin-login admin-login",
    "staff-403":    "admin-login 403         403         403         403         admin-login admin-login admin-login",
    "staff-404":    "admin-login 404         404         404         404         admin-login admin-login admin-login",
    "own-row":      "admin-login ok          admin-index admin-index admin-index admin-login admin-login admin-login",
    "evidence":     "admin-login 403         admin-index admin-index admin-index admin-login admin-login admin-login",
    # the quality check's admin: accounts that own a study
    "owners":       "admin-login ok          ok          403         403         admin-login admin-login admin-login",
    "owners-row":   "admin-login ok          admin-index 403         403         admin-login admin-login admin-login",
    # the API (api/): a researcher's token or browser session; no login is a 401, an account that is no
    # researcher's (a checker's) a 403; a study's resources as its pages ("api-foreign": a pool of the
    # study in another study's address); one's own API token, revoked from the tokens page
    "api-account":  "401         ok          ok          ok          ok          403         401         401",
    "api-read":     "401         ok          404         ok          ok          403         401         401",
    "api-write":    "401         ok          404         403         ok          403         401         401",
    "api-foreign":  "401         404         404         404         404         403         401         401",
    # the owner's alone (Prolific: their token, their money): a member's is a 403
    "api-owner":    "401         ok          404         403         403         403         401         401",
    # a row of the researcher's own outside any study (a participant group, their block list's entry)
    "api-own":      "401         ok          404         404         404         403         401         401",
    "api-nowhere":  "404         404         404         404         404         404         404         404",
    "own-token":    "login       ok          404         404         404         404         login       login",
}.items()}
REFUSALS = {"login", "admin-login", "admin-index", "401", "403", "404", "405"}


@dataclass(frozen=True)
class Route:
    methods: dict[str, str]  # method: kind
    args: dict[str, str] = field(default_factory=dict)  # a parameter of the address: the world's value named
    data: dict[str, str] = field(default_factory=dict)  # what a POST sends
    path: str = ""  # the address of a regular-expression route
    name: str = ""  # in ``crossed_matrix``: the route of ``MATRIX`` addressed


def route(*, args=None, data=None, path="", name="", **methods: str) -> Route:
    return Route(methods, args or {}, data or {}, path, name)


STUDY_READ, STUDY_WRITE, STUDY_OWNER = "study-read", "study-write", "study-owner"
REVIEW, ANNOTATOR, ASSIGNMENT = "review", "annotator", "assignment"

MATRIX: dict[str, Route] = {
    # --- public, with their own proof -------------------------------------------------------------
    "/": route(GET="public"),  # to the study list (which asks for a login)
    "login": route(GET="public", POST="public"),
    "logout": route(POST="logout"),  # logged out, to the login page
    "set_language": route(POST="public"),  # the annotator's language menu: a cookie, nothing stored
    "annotation:healthz": route(GET="public"),
    "recruitment:webhook": route(POST="webhook"),
    "annotation:invitation": route(GET="invitation", POST="invitation", args={"token": "invitation"}),  # its token
    "annotation:entry": route(GET="public"),  # Prolific's ids (none here: "this link is incomplete")
    "admin:login": route(GET="admin-login", POST="public"),
    # --- the annotator's path (join/ is above) ----------------------------------------------------
    "annotation:next": route(GET=ANNOTATOR),
    "annotation:resume": route(POST="public"),  # the resume code is its proof
    "annotation:switch": route(POST="public", args={"session_pk": "assignment"}),  # only among the cookie's sessions
    "annotation:consent": route(GET=ANNOTATOR, POST=ANNOTATOR),
    "annotation:eligibility": route(GET=ANNOTATOR, POST=ANNOTATOR),
    "annotation:instructions": route(GET=ANNOTATOR, POST=ANNOTATOR),
    "annotation:mock": route(GET=ANNOTATOR, POST=ANNOTATOR),
    "annotation:example-image": route(GET=ANNOTATOR, args={"item_pk": "example"}),  # the study's practice
    "annotation:items": route(GET=ANNOTATOR),
    "annotation:item-submit": route(POST=ASSIGNMENT, args={"pk": "assignment"}),
    "annotation:item-draft": route(POST=ASSIGNMENT, args={"pk": "assignment"}),
    "annotation:item-image": route(GET=ASSIGNMENT, args={"pk": "assignment"}),
    "annotation:item-image-signed": route(GET="public", args={"token": "image_link"}),  # its signature
    "annotation:item-upload": route(POST=ASSIGNMENT, args={"pk": "assignment"}),
    "annotation:item-upload-image": route(GET=ASSIGNMENT, args={"pk": "assignment", "token": "own_upload"}),
    "annotation:end": route(GET=ANNOTATOR),
    # --- any account's own pages ------------------------------------------------------------------
    "studies:study-list": route(GET="account"),
    "annotation:review-home": route(GET="account"),
    "recruitment:token-settings": route(GET="account"),
    "recruitment:token-save": route(POST="account"),
    "recruitment:token-remove": route(POST="account"),
    "api:token-settings": route(GET="account"),
    "api:token-create": route(POST="account", data={"name": "a script"}),  # a checker: told it is for researchers
    "api:token-revoke": route(POST="own-token", args={"token_pk": "api_token"}),  # the owner's token
    # --- a researcher's pages outside a study -----------------------------------------------------
    "studies:study-new": route(GET="researcher", POST="researcher"),
    "studies:markdown-preview": route(POST="researcher"),
    "annotation:preset-preview": route(GET="researcher", args={"name": "preset"}),
    # --- a study's pages --------------------------------------------------------------------------
    "studies:item-list": route(GET=STUDY_READ),
    "studies:study-settings": route(GET=STUDY_READ, POST=STUDY_WRITE),
    "studies:study-status": route(POST=STUDY_WRITE),
    "studies:study-delete": route(POST=STUDY_OWNER),
    "studies:pool-list": route(GET=STUDY_READ),
    "studies:pool-add": route(GET=STUDY_READ, POST=STUDY_WRITE),
    "studies:pool-add-several": route(GET=STUDY_READ, POST=STUDY_WRITE),
    "studies:pool-edit": route(GET=STUDY_READ, POST=STUDY_WRITE),
    # a pool's panel: read by members, changed by editors; the signing secret the owner's; signed links
    # (credentials of participants) made by the owner and editors only
    "studies:pool-panel": route(GET=STUDY_READ, POST=STUDY_WRITE),
    "studies:pool-panel-secret": route(POST=STUDY_OWNER),
    "studies:pool-panel-links": route(GET=STUDY_WRITE, POST=STUDY_WRITE),
    "studies:item-image": route(GET=STUDY_READ),
    "studies:members": route(GET=STUDY_READ),
    "studies:protocol-edit": route(GET=STUDY_READ, POST=STUDY_WRITE),
    "studies:protocol-check": route(POST=STUDY_READ),  # a check of typed text: nothing is stored
    "studies:translation-list": route(GET=STUDY_READ),
    "studies:translation-edit": route(GET=STUDY_READ, POST=STUDY_WRITE),
    "studies:practice": route(GET=STUDY_READ),
    "studies:practice-add": route(GET=STUDY_READ, POST=STUDY_WRITE),
    "studies:practice-edit": route(GET=STUDY_READ, POST=STUDY_WRITE),
    "studies:practice-delete": route(POST=STUDY_WRITE),
    "studies:practice-attempts": route(POST=STUDY_WRITE),
    "studies:practice-example": route(POST=STUDY_WRITE),
    "studies:member-role": route(POST=STUDY_OWNER),
    "studies:member-remove": route(POST=STUDY_OWNER),
    "studies:invitation-revoke": route(POST=STUDY_OWNER),
    "analysis:study-dashboard": route(GET=STUDY_READ),
    "analysis:study-progress": route(GET=STUDY_READ),
    "analysis:pool-annotators": route(GET=STUDY_READ),
    "analysis:annotator-block": route(POST=STUDY_WRITE),
    "analysis:annotator-unblock": route(POST=STUDY_WRITE),
    "analysis:annotator-exclude": route(POST=STUDY_WRITE, data={"reason": "answers at random"}),
    "analysis:annotator-include": route(POST=STUDY_WRITE),
    "analysis:analysis": route(GET=STUDY_READ, POST=STUDY_WRITE),
    "analysis:planner": route(GET=STUDY_READ),
    "analysis:analysis-status": route(GET=STUDY_READ),
    "analysis:analysis-result": route(GET=STUDY_READ),
    "analysis:metrics-upload": route(POST=STUDY_WRITE),
    "analysis:import-items": route(GET=STUDY_READ, POST=STUDY_WRITE),
    "analysis:import-sample": route(GET=STUDY_READ),
    "analysis:import-status": route(GET=STUDY_READ, args={"job_pk": "import_job"}),
    "exports:export-start": route(POST=STUDY_WRITE),
    "exports:export-status": route(GET=STUDY_READ, args={"job_pk": "export_job"}),
    "exports:export-cancel": route(POST=STUDY_WRITE, args={"job_pk": "export_job"}),
    "exports:export-download": route(GET=STUDY_READ, args={"job_pk": "export_job"}),
    "exports:export-manifest": route(GET=STUDY_READ, args={"job_pk": "export_job"}),
    # Prolific: what calls it is the owner's (their token, their money), and so is what shows who the
    # participants are (their Prolific ids beside the pseudonyms: the review, its jobs and bonuses)
    "recruitment:study-prolific": route(GET=STUDY_READ),  # the entries not verified: counted for a member
    "recruitment:study-webhooks": route(POST=STUDY_OWNER),
    "recruitment:study-policy": route(POST=STUDY_WRITE),
    "recruitment:study-launch": route(POST=STUDY_OWNER),
    "recruitment:pool-preview": route(GET=STUDY_OWNER),
    "recruitment:pool-countries": route(GET=STUDY_OWNER),
    "recruitment:pool-country": route(POST=STUDY_OWNER),
    "recruitment:review": route(GET=STUDY_OWNER),
    "recruitment:review-refresh": route(POST=STUDY_OWNER),
    # issue 28, part 2: messages name participants' Prolific ids and use the owner's token
    "recruitment:messages": route(GET=STUDY_OWNER),
    "recruitment:message-send": route(POST=STUDY_OWNER),
    "recruitment:trial-study": route(POST=STUDY_OWNER),
    "recruitment:review-approve": route(POST=STUDY_OWNER),
    "recruitment:review-reject": route(GET=STUDY_OWNER, POST=STUDY_OWNER),
    "recruitment:review-return": route(GET=STUDY_OWNER, POST=STUDY_OWNER),
    "recruitment:review-job": route(GET=STUDY_OWNER, args={"job_pk": "prolific_job"}),
    "recruitment:bonus-new": route(GET=STUDY_OWNER, POST=STUDY_OWNER),
    "recruitment:bonus": route(GET=STUDY_OWNER),
    "recruitment:bonus-send": route(POST=STUDY_OWNER),
    "recruitment:study-transition": route(POST=STUDY_OWNER),
    # rounds: the invite-back is the study owner's (their token; participants' ids); groups and the
    # block list are each researcher's own (another's are never listed)
    "recruitment:rounds-invite-back": route(GET=STUDY_OWNER, POST=STUDY_OWNER),
    "recruitment:rounds-groups": route(GET="researcher"),
    "recruitment:rounds-group-sync": route(POST="own-group", args={"group_pk": "group_pk"}),
    "recruitment:rounds-blocked": route(GET="researcher", POST="researcher"),
    "recruitment:rounds-unblock": route(POST="researcher"),
    "recruitment:pool-remove": route(GET=STUDY_WRITE, POST=STUDY_WRITE),  # the pool stays while on Prolific
    "annotation:study-item": route(GET=STUDY_READ),
    "annotation:item-attention": route(POST=STUDY_WRITE),  # an item made a quality check, or ordinary again
    "annotation:item-gold": route(GET=STUDY_READ, POST=STUDY_WRITE),
    "annotation:item-ordinary": route(POST=STUDY_WRITE),
    "annotation:seed": route(GET=STUDY_READ),
    "annotation:seed-answer-items": route(POST=STUDY_WRITE),
    "annotation:seed-kept-prompts": route(GET=STUDY_READ),
    # previews keep their state in the researcher's own browser session: nothing of the study changes
    "annotation:protocol-preview": route(POST=STUDY_READ),
    "annotation:path-preview": route(GET=STUDY_READ),
    "annotation:path-preview-consent": route(GET=STUDY_READ, POST=STUDY_READ),
    "annotation:path-preview-eligibility": route(GET=STUDY_READ, POST=STUDY_READ),
    "annotation:path-preview-instructions": route(GET=STUDY_READ, POST=STUDY_READ),
    "annotation:path-preview-mock": route(GET=STUDY_READ, POST=STUDY_READ),
    "annotation:path-preview-items": route(GET=STUDY_READ),
    "annotation:path-preview-item-submit": route(POST=STUDY_READ),
    "annotation:path-preview-item-draft": route(POST=STUDY_READ),
    "annotation:path-preview-item-upload": route(POST=STUDY_READ),
    "annotation:path-preview-end": route(GET=STUDY_READ),
    "annotation:member-invite": route(POST=STUDY_OWNER),
    "annotation:checker-remove": route(POST=STUDY_OWNER),
    # --- the quality check ------------------------------------------------------------------------
    "annotation:review-study": route(GET=REVIEW),
    "annotation:review-pool": route(GET=REVIEW),
    "annotation:review-target": route(POST=STUDY_WRITE),
    "annotation:review-submit": route(POST=REVIEW),
    "annotation:review-image": route(GET=REVIEW),
    "annotation:review-upload-image": route(GET=REVIEW),
    # --- the API: its schema and docs are public; a POST of a form's encoding is a 415 ("ok": nothing
    # is written) to whoever passes the login and the role ------------------------------------------
    "api:schema": route(GET="public"),
    "api:docs": route(GET="public"),
    "api:preset-list": route(GET="api-account"),
    "api:study-list": route(GET="api-account", POST="api-account"),
    "api:study-detail": route(GET="api-read"),
    "api:protocol-versions": route(GET="api-read"),
    "api:pool-list": route(GET="api-read", POST="api-write"),
    "api:pool-detail": route(GET="api-read", args={"pool_id": "pool_pk"}),
    "api:pool-progress": route(GET="api-read", args={"pool_id": "pool_pk"}),
    "api:pool-panel": route(GET="api-read", args={"pool_id": "pool_pk"}),  # its PUT: test_panels_pages
    "api:pool-panel-links": route(POST="api-write", args={"pool_id": "pool_pk"}),
    # api: items and annotations
    "api:item-list": route(GET="api-read"),
    "api:item-detail": route(GET="api-read", args={"item_id": "item_pk"}),
    "api:item-image": route(GET="api-read", args={"item_id": "item_pk"}),
    "api:import-list": route(GET="api-read", POST="api-write"),  # no file sent: a 400 ("ok") to an editor
    "api:import-detail": route(GET="api-read", args={"job_id": "import_job"}),
    "api:annotation-list": route(GET="api-read"),

    # api: analysis runs and metric uploads
    "api:analysis-list": route(GET="api-read", POST="api-write"),  # a form's encoding: 415
    "api:analysis-detail": route(GET="api-read", args={"run_id": "run_pk"}),
    "api:analysis-result": route(GET="api-read", args={"run_id": "run_pk"}),  # a queued run: 409
    "api:planner": route(GET="api-read"),  # no `field` given: 400
    "api:metric-list": route(GET="api-read", POST="api-write"),  # no file: 400
    "api:metric-detail": route(GET="api-read", args={"upload_id": "metric_upload"}),

    # api: exports
    "api:export-formats": route(GET="api-read"),
    "api:export-list": route(GET="api-read", POST="api-write"),  # a form post: 415 (the API reads JSON)
    "api:export-detail": route(GET="api-read", args={"job_id": "export_job"}),
    "api:export-cancel": route(POST="api-write", args={"job_id": "export_job"}),  # done already: 409
    "api:export-download": route(GET="api-read", args={"job_id": "export_job"}),
    "api:export-manifest": route(GET="api-read", args={"job_id": "export_job"}),

    # api: reviews
    "api:review-list": route(GET="api-write"),  # as the review pages: not a viewer's
    "api:review-detail": route(GET="api-write", args={"review_id": "annotation.review"}),
    "api:review-target": route(GET="api-read", args={"pool_id": "pool_pk"}),  # its PUT: tests/api/test_reviews_api.py

    # api: Prolific
    "api:prolific": route(GET="api-owner"),
    "api:prolific-launch": route(POST="api-owner"),
    "api:prolific-transition": route(POST="api-owner"),
    "api:prolific-submissions": route(GET="api-owner"),
    "api:prolific-refresh": route(POST="api-owner"),
    "api:prolific-approve": route(POST="api-owner"),
    "api:prolific-reject": route(POST="api-owner", args={"sub_id": "sub_pk"}),
    "api:prolific-return": route(POST="api-owner", args={"sub_id": "sub_pk"}),
    "api:prolific-jobs": route(GET="api-owner"),
    "api:prolific-job": route(GET="api-owner", args={"job_id": "prolific_job"}),
    "api:prolific-bonuses": route(GET="api-owner", POST="api-owner"),
    "api:prolific-bonus": route(GET="api-owner", args={"bonus_id": "bonus_pk"}),
    "api:prolific-bonus-send": route(POST="api-owner", args={"bonus_id": "bonus_pk"}),
    # api: rounds (the researcher's own groups and block list; a form's encoding: 415; DELETE in
    # tests/api/test_rounds_api.py)
    "api:participant-groups": route(GET="api-account", POST="api-account"),
    "api:participant-group": route(GET="api-own", args={"group_id": "group_pk"}),
    "api:blocked-participants": route(GET="api-account", POST="api-account"),
    "api:blocked-participant": route(GET="api-own", args={"participant_id": "blocked_pid"}),
    "api:prolific-messages": route(GET="api-owner", POST="api-owner"),

    "api:nowhere": route(GET="api-nowhere", POST="api-nowhere", path="/api/v2/studies/"),  # a JSON 404
    # --- the admin's own pages --------------------------------------------------------------------
    "admin:index": route(GET="staff"),
    "admin:logout": route(POST="admin-logout"),
    "admin:password_change": route(GET="staff", POST="staff"),
    "admin:password_change_done": route(GET="staff"),
    "admin:autocomplete": route(GET="staff-403"),  # asked for no field: refused
    "admin:jsi18n": route(GET="staff"),
    "admin:view_on_site": route(GET="staff-404", args={"content_type_id": "study_type", "object_id": "study"}),
    "admin:app_list": route(GET="staff", path="/admin/studies/"),
    "admin/(?P<url>.*)$": route(GET="staff-404", path="/admin/nowhere/"),
    "admin:auth_user_password_change": route(GET="staff-403", POST="staff-403", args={"id": "auth.user"}),
}

# The admin's models: their six routes each (list, add, a row's change, history, delete and the
# address of the row that leads to its change page) follow from what the model's admin is.
ADMIN_KINDS: dict[str, dict[str, dict[str, str]]] = {
    # the researcher's own rows (StudyAdmin, CountryPoolAdmin, ItemAdmin): a list of their own, any row
    # of another's does not exist
    "owned": {
        "changelist": {"GET": "staff"},
        "add": {"GET": "staff", "POST": "staff"},
        "change": {"GET": "own-row", "POST": "own-row"},
        "history": {"GET": "own-row"},
        "delete": {"GET": "own-row", "POST": "own-row"},
        "": {"GET": "staff"},
    },
    # a study: as "owned", but its owner may not delete it here while it holds collected data (the
    # admin would delete rows the researcher may not), only from the study's page
    "study": {
        "changelist": {"GET": "staff"},
        "add": {"GET": "staff", "POST": "staff"},
        "change": {"GET": "own-row", "POST": "own-row"},
        "history": {"GET": "own-row"},
        "delete": {"GET": "own-row", "POST": "evidence"},
        "": {"GET": "staff"},
    },
    # collected data: the owner looks, nobody edits (ReadOnlyAdmin)
    "read-only": {
        "changelist": {"GET": "staff"},
        "add": {"GET": "staff-403", "POST": "staff-403"},
        "change": {"GET": "own-row", "POST": "staff-403"},
        "history": {"GET": "own-row"},
        "delete": {"GET": "staff-403", "POST": "staff-403"},
        "": {"GET": "staff"},
    },
    # the quality check's rows: whoever owns a study manages those of their own (StudyOwnerAdmin)
    "study-owner": {
        "changelist": {"GET": "owners"},
        "add": {"GET": "owners", "POST": "owners"},
        "change": {"GET": "owners-row", "POST": "owners-row"},
        "history": {"GET": "own-row"},  # the row is looked up before the permission
        "delete": {"GET": "owners-row", "POST": "owners-row"},
        "": {"GET": "staff"},
    },
    # the checkers' reviews: read by whoever owns a study, their own studies' only
    "reviews": {
        "changelist": {"GET": "owners"},
        "add": {"GET": "staff-403", "POST": "staff-403"},
        "change": {"GET": "owners-row", "POST": "staff-403"},
        "history": {"GET": "own-row"},
        "delete": {"GET": "staff-403", "POST": "staff-403"},
        "": {"GET": "staff"},
    },
    # the operators' (accounts, login attempts): a researcher may not open them
    "operators": {
        "changelist": {"GET": "staff-403"},
        "add": {"GET": "staff-403", "POST": "staff-403"},
        "change": {"GET": "staff-403", "POST": "staff-403"},
        "history": {"GET": "staff-403"},
        "delete": {"GET": "staff-403", "POST": "staff-403"},
        "": {"GET": "staff"},
    },
}
ADMIN_MODELS = {
    "studies.study": "study",
    "studies.countrypool": "owned",
    "studies.item": "owned",
    "annotation.annotator": "read-only",
    "annotation.session": "read-only",
    "annotation.assignment": "read-only",
    "annotation.annotation": "read-only",
    "annotation.review": "reviews",
    "annotation.checker": "study-owner",
    "annotation.reviewtarget": "study-owner",
    "auth.user": "operators",
    "auth.group": "operators",
    "axes.accessattempt": "operators",
    "axes.accesslog": "operators",
    "axes.accessfailurelog": "operators",
}


def admin_matrix() -> dict[str, Route]:
    """The routes of every model of ``ADMIN_MODELS``, as ``MATRIX`` names them."""
    out = {}
    for label, kind in ADMIN_MODELS.items():
        app, model = label.split(".")
        for action, methods in ADMIN_KINDS[kind].items():
            key = f"admin:{app}_{model}_{action}" if action else f"admin/{app}/{model}/<path:object_id>/"
            data = {"post": "yes"} if action == "delete" else {}
            out[key] = Route(methods, {"object_id": label}, data)
    return out


MATRIX |= admin_matrix()

STUDY_KINDS = {STUDY_READ, STUDY_WRITE, STUDY_OWNER, REVIEW}
NOT_OBJECTS = {"pk", "position", "step", "verb", "language"}  # the parameters of a study's address that name no row


@functools.cache
def crossed_matrix() -> dict[str, Route]:
    """Addresses that pair objects that do not belong together, each on a route of ``MATRIX``
    (``Route.name``): every study route naming an object, on another researcher's study (the object
    is looked up in the study of the address, so the other researcher does not reach it either); the
    quality check on the Japan pool, which the checker does not check; an object of another pool,
    annotation or assignment in the address of this one."""
    out = {}
    for key, r in MATRIX.items():
        params = set(re.findall(r"<(?:\w+:)?(\w+)>", url_routes().get(key, "")))
        if set(r.methods.values()) <= STUDY_KINDS and params - NOT_OBJECTS:
            out[f"{key}, of another study"] = replace(
                r, name=key, methods=dict.fromkeys(r.methods, "foreign"), args=r.args | {"pk": "others_study"})
    elsewhere = {"pool_pk": "other_pool", "annotation_pk": "other_annotation", "token": "other_upload"}
    for key in ("annotation:review-pool", "annotation:review-submit", "annotation:review-image",
                "annotation:review-upload-image"):
        out[f"{key}, of the Japan pool"] = replace(
            MATRIX[key], name=key, methods=dict.fromkeys(MATRIX[key].methods, "review-japan"), args=elsewhere)
    for key in ("annotation:review-submit", "annotation:review-image", "annotation:review-upload-image"):
        out[f"{key}, a Japan annotation in the India pool"] = replace(
            MATRIX[key], name=key, methods=dict.fromkeys(MATRIX[key].methods, "foreign"),
            args={"annotation_pk": "other_annotation", "token": "other_upload"})
    for key in ("api:pool-detail", "api:pool-progress"):  # a pool of this study in the other's address
        out[f"{key}, of another study"] = replace(
            MATRIX[key], name=key, methods=dict.fromkeys(MATRIX[key].methods, "api-foreign"),
            args=MATRIX[key].args | {"pk": "others_study"})
    # an item, its image, an import of this study in the other's address
    for key in ("api:item-detail", "api:item-image", "api:import-detail"):
        out[f"{key}, of another study"] = replace(
            MATRIX[key], name=key, methods=dict.fromkeys(MATRIX[key].methods, "api-foreign"),
            args=MATRIX[key].args | {"pk": "others_study"})
    out["annotation:review-upload-image, another annotation's upload"] = route(
        name="annotation:review-upload-image", GET="foreign", args={"token": "own_upload"})
    out["annotation:item-upload-image, another assignment's upload"] = route(
        name="annotation:item-upload-image", GET="not-theirs", args={"pk": "assignment", "token": "token"})
    out["annotation:example-image, an item that is no practice example"] = route(
        name="annotation:example-image", GET="not-theirs")
    return out


@functools.cache
def url_routes() -> dict[str, str]:
    """Every URL pattern of the root URLconf: {namespaced name, or the route of an unnamed one: route}."""
    found = {}

    def walk(patterns, prefix: str, namespace: str) -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, prefix + str(p.pattern), ":".join(filter(None, [namespace, p.namespace])))
            elif isinstance(p, URLPattern):
                where = prefix + str(p.pattern)
                key = ":".join(filter(None, [namespace, p.name])) if p.name else where or "/"
                assert key not in found, f"two routes are called {key}"
                found[key] = where

    walk(get_resolver().url_patterns, "", "")
    return found


def test_every_route_is_in_the_matrix():
    routes = url_routes()
    assert sorted(set(routes) - set(MATRIX)) == [], "a route without expectations: classify it in MATRIX"
    assert sorted(set(MATRIX) - set(routes)) == [], "MATRIX names a route that no longer exists"
    assert set(ADMIN_MODELS) == {m._meta.label_lower for m in admin.site._registry}


def test_every_kind_has_an_outcome_per_role():
    assert all(len(row) == len(ROLES) for row in KINDS.values())
    used = {kind for r in [*MATRIX.values(), *crossed_matrix().values()] for kind in r.methods.values()}
    assert used <= set(KINDS), used - set(KINDS)


# --- the world, built by tests/route_world.py --------------------------------------------------


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):
    """Built once for the module, in a transaction rolled back after its last test."""
    media = str(tmp_path_factory.mktemp("media"))
    with django_db_blocker.unblock(), override_settings(MEDIA_ROOT=media, PROLIFIC_API_TOKEN=""):
        with transaction.atomic():
            yield build_world(media)
            transaction.set_rollback(True)


@pytest.fixture(autouse=True)
def _world_media(settings, world):
    settings.MEDIA_ROOT = world.media
    settings.PROLIFIC_API_TOKEN = ""


# --- the requests -----------------------------------------------------------------------------

WRITE = re.compile(r"\s*(INSERT|UPDATE|DELETE|REPLACE)\b", re.I)
SESSIONS = '"django_session"'  # the browser's own login state, not the study's


def address(key: str, pattern: str, r: Route, world: World) -> str:
    """The route's address for the world's objects (checked to reach this very route)."""
    values = world.values | {param: world.values[name] for param, name in r.args.items()}
    url = r.path or "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values[m[1]]), pattern)
    match = resolve(url)
    assert match.route.lstrip("^") == pattern.replace("/^", "/").lstrip("^"), f"{url} does not reach {key}"
    return url


def outcome(response) -> str:
    status = response.status_code
    assert status < 500, status
    if 300 <= status < 400:
        where = urlsplit(response["Location"]).path
        return {reverse("login"): "login", reverse("admin:login"): "admin-login",
                reverse("admin:index"): "admin-index"}.get(where, "ok")
    return str(status) if status in (401, 403, 404, 405) else "ok"


def request_as(client: Client, role: str, method: str, url: str, data: dict, world: World):
    """One request of ``role`` in a savepoint rolled back after it: (outcome, the writes it made)."""
    client.cookies = SimpleCookie(world.cookies[role])
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        response = client.get(url) if method == "GET" else client.post(url, data)
        transaction.set_rollback(True)
    got = outcome(response)
    writes = [q["sql"][:80] for q in queries.captured_queries if WRITE.match(q["sql"]) and SESSIONS not in q["sql"]]
    return got, writes


def check(key: str, r: Route, world: World) -> None:
    url = address(r.name or key, url_routes()[r.name or key], r, world)
    client = Client()
    got, wanted, wrote = {}, {}, {}
    for method, kind in r.methods.items():
        for role, expected in zip(ROLES, KINDS[kind], strict=True):
            got[method, role], writes = request_as(client, role, method, url, r.data, world)
            wanted[method, role] = expected
            if expected in REFUSALS and writes:
                wrote[method, role] = writes
    assert {k: v for k, v in got.items() if v != wanted[k]} == {}, f"{url}: wanted {wanted}"
    assert wrote == {}, f"{url}: a refused request wrote"


@pytest.mark.parametrize("key", sorted(MATRIX))
def test_route_by_role(key, world):
    check(key, MATRIX[key], world)


@pytest.mark.parametrize("key", sorted(crossed_matrix()))
def test_crossed_address_by_role(key, world):
    check(key, crossed_matrix()[key], world)


def test_the_check_of_refusals_sees_a_write(world):
    """What a refused request must not do, an allowed one does: the owner's review target is stored."""
    url = reverse("annotation:review-target", args=[world.values["pk"], world.values["pool_pk"]])
    got, writes = request_as(Client(), "owner", "POST", url, {"percent": "30"}, world)
    assert got == "ok" and any(w.startswith("UPDATE") or w.startswith("INSERT") for w in writes), writes


def test_a_viewers_refusal_says_the_role_is_read_only(world):
    client = Client()
    client.cookies = SimpleCookie(world.cookies["viewer"])
    response = client.post(reverse("studies:pool-add", args=[world.values["pk"]]), {"country": "FR"})
    assert response.status_code == 403
    assert "Your role on this study is read-only" in response.content.decode()
