"""What the fake Prolific accepts: its seed catalogue and the checks of request bodies, after
Prolific's public API reference (CreateStudy, filters, completion codes, transitions; see
shared/PROLIFIC.md). Where the reference is loose the fake is strict, to catch our mistakes:
legacy fields (``completion_code``, ``eligibility_requirements``…) and unknown fields are refused.

Each check returns ``{field: [messages]}``, empty when the body is acceptable, the shape of
Prolific's 400 ``detail``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import secrets
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from studies.countries import COUNTRIES


class Answer(Exception):
    """Raised by a route of the fake to answer with an error."""

    def __init__(self, status: int, detail: Any = None, *, title: str = "", headers: dict[str, str] | None = None):
        self.status = status
        self.detail = detail
        self.title = title or {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
                               405: "Method Not Allowed", 415: "Unsupported Media Type"}.get(status, "Error")
        self.headers = headers or {}


def error_body(status: int, title: str, detail: Any) -> dict[str, Any]:
    return {"error": {"status": status, "error_code": status * 1000 + 1, "title": title, "detail": detail}}


def new_id() -> str:
    return secrets.token_hex(12)  # Prolific's ids are 24 hex characters


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """Prolific's webhook signature: base64(HMAC-SHA256(secret, timestamp + body))."""
    digest = hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


FEE_RATE = Decimal("0.3333")
REJECTION_CATEGORIES = {
    "TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "FAILED_CHECK", "LOW_EFFORT",
    "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA", "UNSUPP_DEVICE", "OTHER",
}

# Countries of residence as Prolific's list names them: its own spellings where they differ from
# ours ("Korea", "Turkey"…), and none for the few places it has no participants in. The first five
# keep the keys the tests know them by.
PROLIFIC_SPELLING = {
    "KR": "Korea", "TR": "Turkey", "CZ": "Czech Republic", "SY": "Syrian Arab Republic",
    "LA": "Lao People's Democratic Republic", "VE": "Venezuela, Bolivarian Republic of", "CI": "Cote d'Ivoire",
    "MK": "Macedonia", "PS": "Palestinian Territory, Occupied", "RU": "Russian Federation",
    "IR": "Iran, Islamic Republic of", "VN": "Viet Nam", "CD": "Congo, The Democratic Republic of the",
    "BO": "Bolivia", "TZ": "Tanzania, United Republic of", "MD": "Moldova, Republic of", "GB": "United Kingdom",
}
NOT_ON_PROLIFIC = {"KP", "AQ", "BV", "HM", "UM", "TF"}
RESIDENCE_CHOICES = {"0": "United Kingdom", "1": "United States", "12": "India", "17": "Japan", "23": "Kenya"}
RESIDENCE_CHOICES |= {
    str(100 + n): PROLIFIC_SPELLING.get(code, name)
    for n, (code, name) in enumerate(COUNTRIES)
    if code not in NOT_ON_PROLIFIC | {"GB", "US", "IN", "JP", "KE"}
}

# The filter catalogue: ids are deliberately not the "likely" slugs, so only resolution by title works.
FILTERS: list[dict[str, Any]] = [
    {
        "filter_id": "current-country-of-residence", "title": "Current Country of Residence",
        "question": "In which country do you currently reside?", "type": "select", "data_type": "ChoiceID",
        "choices": RESIDENCE_CHOICES,
    },
    {
        "filter_id": "nationality-2023", "title": "Nationality", "question": "What is your nationality?",
        "type": "select", "data_type": "ChoiceID",
        "choices": {"0": "United Kingdom", "1": "United States", "40": "India", "41": "Japan", "42": "Kenya"},
    },
    {
        "filter_id": "birth-country-v3", "title": "Country of Birth", "question": "Where were you born?",
        "type": "select", "data_type": "ChoiceID",
        "choices": {"0": "United Kingdom", "1": "United States", "70": "India", "71": "Japan"},
    },
    {
        "filter_id": "first-language_old", "title": "First Language", "question": "What is your first language?",
        "type": "select", "data_type": "ChoiceID",
        "choices": {"0": "English", "5": "Hindi", "6": "Japanese", "7": "Tamil"},
    },
    {"filter_id": "age", "title": "Age", "question": "What is your age?", "type": "range", "data_type": "integer",
     "min": 18, "max": 100},
]

CREATE_REQUIRED = {
    "name", "description", "external_study_url", "prolific_id_option", "completion_codes",
    "estimated_completion_time", "reward", "total_available_places",
}
CREATE_OPTIONAL = {
    "internal_name", "maximum_allowed_time", "device_compatibility", "peripheral_requirements", "filters",
    "filter_set_id", "filter_set_version", "project", "submissions_config", "study_labels", "content_warnings",
    "metadata", "naivety_distribution_rate", "is_custom_screening", "privacy_notice", "content_warning_details",
}
LEGACY = {"completion_code", "completion_option", "eligibility_requirements"}
PROLIFIC_ID_OPTIONS = {"question", "url_parameters", "not_required"}
CODE_ACTIONS = {
    "AUTOMATICALLY_APPROVE", "MANUALLY_REVIEW", "ADD_TO_PARTICIPANT_GROUP", "REMOVE_FROM_PARTICIPANT_GROUP",
    "REQUEST_RETURN", "DYNAMIC_PAYMENT",
}
ACTORS = {"participant", "researcher"}
DEVICES = {"desktop", "tablet", "mobile"}
PERIPHERALS = {"audio", "camera", "download", "microphone"}
PLACEHOLDERS = ("{{%PROLIFIC_PID%}}", "{{%STUDY_ID%}}", "{{%SESSION_ID%}}")
MIN_HOURLY = {"GBP": 600, "USD": 800}
# After publishing, a PATCH may change only these.
PATCHABLE_WHEN_PUBLISHED = {"internal_name", "total_available_places"}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def least_maximum_time(estimated: int) -> int:
    """The reference's minimum maximum_allowed_time: 2 + 2·est + 2·√est."""
    return math.ceil(2 + 2 * estimated + 2 * math.sqrt(estimated))


Problems = Iterator[tuple[str, str]]  # (field, message), as a study check finds them


def study_errors(body: Any, *, currency: str, partial: bool = False) -> dict[str, list[str]]:
    """The problems of a create-study body (or, ``partial``, of a draft's PATCH)."""
    if not isinstance(body, dict):
        return {"non_field_errors": ["Expected a JSON object."]}
    errors: dict[str, list[str]] = {}
    checks = (_retired, _unknown, *(() if partial else (_missing,)), *STUDY_CHECKS)
    for check in checks:
        for key, message in check(body, currency):
            errors.setdefault(key, []).append(message)
    return errors


def _retired(body: dict, currency: str) -> Problems:
    for key in sorted(LEGACY & body.keys()):
        yield key, "This field is retired: use completion_codes and filters."


def _unknown(body: dict, currency: str) -> Problems:
    for key in sorted(body.keys() - CREATE_REQUIRED - CREATE_OPTIONAL - LEGACY):
        yield key, "Unknown field."


def _missing(body: dict, currency: str) -> Problems:
    for key in sorted(CREATE_REQUIRED - body.keys()):
        yield key, "This field is required."


def _texts(body: dict, currency: str) -> Problems:
    if "name" in body and (not isinstance(body["name"], str) or not body["name"].strip()):
        yield "name", "A non-empty string is required."
    for key, kinds in (("description", str), ("internal_name", str | None), ("metadata", str | None)):
        if key in body and not isinstance(body[key], kinds):
            yield key, "A string is required."


def _entry_link(body: dict, currency: str) -> Problems:
    """How participants arrive: the ID option, and a URL carrying the placeholders it needs."""
    option = body.get("prolific_id_option")
    if "prolific_id_option" in body and option not in PROLIFIC_ID_OPTIONS:
        yield "prolific_id_option", f'"{option}" is not a valid choice.'
    if "external_study_url" not in body:
        return
    url = body["external_study_url"]
    if not isinstance(url, str) or not url.startswith(("https://", "http://")):
        yield "external_study_url", "Enter a valid URL."
    elif option == "url_parameters" and not all(p in url for p in PLACEHOLDERS):
        yield "external_study_url", "With url_parameters the URL must carry the three placeholders."


def _counts(body: dict, currency: str) -> Problems:
    for key, least in (("estimated_completion_time", 1), ("reward", 1), ("total_available_places", 1)):
        if key in body and (not _is_int(body[key]) or body[key] < least):
            yield key, f"An integer of at least {least} is required."


def _hourly_rate(body: dict, currency: str) -> Problems:
    est = body.get("estimated_completion_time")
    if _is_int(est) and _is_int(body.get("reward")) and est >= 1:
        least = math.ceil(MIN_HOURLY[currency] * est / 60)
        if body["reward"] < least:
            yield "reward", f"The reward is below the minimum hourly rate; at least {least} for {est} minutes."


def _maximum_time(body: dict, currency: str) -> Problems:
    if "maximum_allowed_time" not in body:
        return
    mat, est = body["maximum_allowed_time"], body.get("estimated_completion_time")
    if not _is_int(mat):
        yield "maximum_allowed_time", "An integer is required."
    elif _is_int(est) and est >= 1 and mat < least_maximum_time(est):
        yield "maximum_allowed_time", f"Must be at least {least_maximum_time(est)} minutes."


def _completion_codes(body: dict, currency: str) -> Problems:
    if "completion_codes" in body:
        for message in completion_code_errors(body["completion_codes"]):
            yield "completion_codes", message


def _devices(body: dict, currency: str) -> Problems:
    for key, allowed in (("device_compatibility", DEVICES), ("peripheral_requirements", PERIPHERALS)):
        if key in body and (not isinstance(body[key], list) or not set(body[key]) <= allowed):
            yield key, f"Choose among {sorted(allowed)}."


def _filters(body: dict, currency: str) -> Problems:
    if body.get("filters") and body.get("filter_set_id"):
        yield "filters", "filters cannot be combined with filter_set_id."
    if "filters" in body:
        for message in filter_errors(body["filters"]):
            yield "filters", message


def _submissions_config(body: dict, currency: str) -> Problems:
    if "submissions_config" not in body:
        return
    config = body["submissions_config"]
    known = {"max_submissions_per_participant", "max_concurrent_submissions", "auto_rejection_categories"}
    if not isinstance(config, dict) or not set(config) <= known:
        yield "submissions_config", f"An object with keys among {sorted(known)}."
    elif any(not _is_int(config[k]) for k in config.keys() - {"auto_rejection_categories"}):
        yield "submissions_config", "Submission limits are integers."


# The checks of a study's fields, in the order their problems are listed (after retired, unknown, missing).
STUDY_CHECKS: tuple[Callable[[dict, str], Problems], ...] = (
    _texts, _entry_link, _counts, _hourly_rate, _maximum_time, _completion_codes, _devices, _filters,
    _submissions_config,
)


def completion_code_errors(codes: Any) -> list[str]:
    if not isinstance(codes, list) or not codes:
        return ["A non-empty list of completion codes is required."]
    out: list[str] = []
    seen: set[Any] = set()
    for n, code in enumerate(codes):
        out.extend(f"Code {n}: {problem}" for problem in _code_errors(code, seen))
    return out


def _code_errors(code: Any, seen: set[Any]) -> list[str]:
    """The problems of one completion code (its code noted in ``seen``, to catch a second use)."""
    if not isinstance(code, dict):
        return ["an object is required."]
    out = []
    value = code.get("code")
    if not isinstance(value, str) or not value.strip():
        out.append("'code' must be a non-empty string.")
    elif value in seen:
        out.append(f"the code {value!r} is used twice.")
    seen.add(value)
    if not isinstance(code.get("code_type"), str) or not code["code_type"]:
        out.append("'code_type' is required.")
    if code.get("actor", "participant") not in ACTORS:
        out.append("'actor' must be participant or researcher.")
    actions = code.get("actions")
    if not isinstance(actions, list):
        return [*out, "'actions' must be a list."]
    return out + _action_errors(actions)


def _action_errors(actions: list) -> list[str]:
    """Each action known, with what it needs; automatic approval and manual review not both."""
    out = []
    for action in actions:
        name = action.get("action") if isinstance(action, dict) else None
        if name not in CODE_ACTIONS:
            out.append(f"unknown action {name!r}.")
        elif name == "REQUEST_RETURN" and not isinstance(action.get("return_reason"), str):
            out.append("REQUEST_RETURN needs a return_reason.")
        elif name in {"ADD_TO_PARTICIPANT_GROUP", "REMOVE_FROM_PARTICIPANT_GROUP"} and not action.get(
            "participant_group"
        ):
            out.append(f"{name} needs a participant_group.")
    unique_approval = {a.get("action") for a in actions if isinstance(a, dict)}
    if {"AUTOMATICALLY_APPROVE", "MANUALLY_REVIEW"} <= unique_approval:
        out.append("AUTOMATICALLY_APPROVE and MANUALLY_REVIEW exclude each other.")
    return out


# Filters on participant groups and earlier studies (not in the catalogue: their values are ids the
# fake checks itself, ``fake_prolific_groups``); the allow-list may be given more than once (ANDed).
ROUND_FILTER_IDS = {
    "participant_group_allowlist", "participant_group_blocklist", "previous_studies_allowlist",
    "previous_studies_blocklist",
}


def filter_errors(filters: Any) -> list[str]:
    if not isinstance(filters, list):
        return ["A list of filters is required."]
    catalogue = {f["filter_id"]: f for f in FILTERS}
    out = []
    seen = set()
    for entry in filters:
        if not isinstance(entry, dict) or not isinstance(entry.get("filter_id"), str):
            out.append("Each filter is an object with a filter_id.")
            continue
        fid = entry["filter_id"]
        if fid in ROUND_FILTER_IDS:
            continue
        known = catalogue.get(fid)
        if known is None:
            out.append(f"Unknown filter_id {fid!r}.")
            continue
        if fid in seen:
            out.append(f"The filter {fid!r} is given twice.")
        seen.add(fid)
        if known["type"] == "select":
            values = entry.get("selected_values")
            if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
                out.append(f"{fid}: selected_values must be a non-empty list of choice keys (strings).")
            elif bad := [v for v in values if v not in known["choices"]]:
                out.append(f"{fid}: unknown choice key(s) {bad}.")
        else:
            rng = entry.get("selected_range")
            if not isinstance(rng, dict) or not ({"lower", "upper"} & rng.keys()):
                out.append(f"{fid}: selected_range with lower and/or upper is required.")
    return out


def eligible_count(filters: list[dict[str, Any]]) -> int:
    """A made-up but deterministic pool size: 6,000 per residence country, halved by each further
    filter and by each extra value; under 25 shows as 0, as Prolific does."""
    count = 0
    for entry in filters:
        if entry["filter_id"] == "current-country-of-residence":
            count = 6000 * len(entry["selected_values"])
    if not count:
        count = 100_000
    for entry in filters:
        if entry["filter_id"] != "current-country-of-residence":
            count //= 2
    return count if count >= 25 else 0
