"""Generic URL-parameter panels (CloudResearch Connect, Besample, SONA, a lab's own list), pure: no
ORM. A pool recruited on such a panel (``studies.models.PoolPanel``) names the entry link's
parameters, a completion link per ending, and how an entry is verified:

- ``signed``: Tessera issues each participant's link, carrying ``token`` = HMAC-SHA256 under the
  pool's secret over (the pool's entry key, the participant's id); an entry whose token is missing
  or does not match is refused (compared in constant time). A link of another pool, or for another
  id, does not match.
- ``none``: the panel puts its own id in one shared link; the id is taken as given (unverified).

Completion links are templates with ``{participant_id}``, ``{study_id}``, ``{session_id}``,
``{code}`` (the study's completion code of the ending) and ``{outcome}``; values are URL-encoded.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import re
import secrets
import string
from collections.abc import Mapping
from urllib.parse import quote, urlsplit

TOKEN_PARAM = "token"
PANEL_ID_RE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")  # a panel's participant, study or session id
PARAM_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")
PLACEHOLDERS = frozenset({"participant_id", "study_id", "session_id", "code", "outcome"})

# The endings of the annotator's path (``Annotator.Outcome`` and a finished session) by the
# completion link each uses; a blank link falls back along ``FALLBACK`` to the completed one, so no
# ending is ever left without a link.
ENDINGS = ("completed", "screened_out", "no_consent", "failed_checks", "returned")
OUTCOME_ENDING = {
    "": "completed",
    "not_eligible": "screened_out",
    "failed_mock": "screened_out",
    "no_consent": "no_consent",
    "failed_check": "failed_checks",
    "all_skipped": "returned",
}
FALLBACK = {"no_consent": "screened_out", "returned": "screened_out", "failed_checks": "completed",
            "screened_out": "completed"}


def secret_new() -> str:
    """A fresh per-pool signing secret (256 bits, URL-safe text)."""
    return secrets.token_urlsafe(32)


def token_for(*, secret: str, entry_key: str, participant_id: str) -> str:
    """The signed link's token of one participant of one pool (hex HMAC-SHA256)."""
    message = f"tessera.panel\x1f{entry_key}\x1f{participant_id}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def token_matches(*, secret: str, entry_key: str, participant_id: str, token: str) -> bool:
    """Whether ``token`` is the participant's token for the pool, compared in constant time."""
    if not secret or not token:
        return False
    expected = token_for(secret=secret, entry_key=entry_key, participant_id=participant_id)
    return hmac.compare_digest(expected.encode(), token.encode())


def template_problem(template: str) -> str | None:
    """Why a completion-link template is refused (None when it is fine): an absolute http(s)
    address with a host, and placeholders only among ``PLACEHOLDERS``."""
    try:
        names = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError:
        return "Unbalanced braces: write placeholders as {participant_id}."
    unknown = sorted(n for n in names if n not in PLACEHOLDERS)
    if unknown:
        return f"Unknown placeholder {{{unknown[0]}}}: use {', '.join('{' + p + '}' for p in sorted(PLACEHOLDERS))}."
    filled = template_fill(template, dict.fromkeys(PLACEHOLDERS, "x"))
    parts = urlsplit(filled)
    if parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in filled):
        return "Enter a full http:// or https:// address, e.g. https://panel.example/complete?id={participant_id}."
    return None


def template_fill(template: str, values: Mapping[str, str]) -> str:
    """The template with each placeholder replaced by its URL-encoded value."""
    return template.format_map({name: quote(str(values.get(name, "")), safe="") for name in PLACEHOLDERS})


def ending_of(outcome: str) -> str:
    """The completion link an annotator's outcome uses (``OUTCOME_ENDING``)."""
    return OUTCOME_ENDING.get(outcome, "completed")


def completion_template(templates: Mapping[str, str], ending: str) -> str:
    """The template of ``ending``, else of its fallbacks, down to the completed one."""
    while True:
        if templates.get(ending):
            return templates[ending]
        if ending not in FALLBACK:
            return templates.get("completed", "")
        ending = FALLBACK[ending]


def signed_link(*, base: str, participant_param: str, participant_id: str, token: str) -> str:
    """A participant's signed entry link: the pool's entry address with their id and token."""
    return f"{base}?{quote(participant_param)}={quote(participant_id, safe='')}&{TOKEN_PARAM}={token}"


def ids_read(text: str) -> tuple[list[str], list[str]]:
    """A pasted list of ids (one a line, or separated by commas): (the ids, once each in order,
    the refused ones)."""
    ids: list[str] = []
    bad: list[str] = []
    for word in re.split(r"[,;\s]+", text):
        word = word.strip()
        if not word:
            continue
        if not PANEL_ID_RE.match(word):
            bad.append(word)
        elif word not in ids:
            ids.append(word)
    return ids, bad


def links_csv(links: list[tuple[str, str]]) -> str:
    """``participant_id,link`` lines (an id a spreadsheet would read as a formula is quoted)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["participant_id", "link"])
    for pid, link in links:
        writer.writerow(["'" + pid if pid[:1] in "=+-@" else pid, link])
    return out.getvalue()
