"""A pool's entry link: the one address annotators arrive at, as Prolific (or a demo) sends them, or a URL
panel's: one shared link, or a signed link per participant (``studies.panels``)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from urllib.parse import urlencode

from django.conf import settings
from django.core import signing
from django.urls import reverse

from studies import panels
from studies.models import CountryPool

# The participant, study and session ids Prolific appends to the link, as its placeholders.
PROLIFIC_PARAMS = {"PROLIFIC_PID": "{{%PROLIFIC_PID%}}", "STUDY_ID": "{{%STUDY_ID%}}", "SESSION_ID": "{{%SESSION_ID%}}"}


def entry_link(pool: CountryPool, params: Mapping[str, str] | None = None) -> str:
    """The pool's annotator entry link on ``SITE_URL``, with Prolific's placeholders (ready to
    paste into Prolific) or, given ``params``, with those values (a demo participant's link)."""
    path = reverse("annotation:entry", args=[pool.entry_key])
    if params is None:  # the placeholders stay as Prolific writes them, braces unescaped
        query = "&".join(f"{name}={value}" for name, value in PROLIFIC_PARAMS.items())
    else:
        query = urlencode(params)
    return f"{settings.SITE_URL}{path}?{query}"


# An item page's image address carries a signature, as a storage's presigned URL does: the image
# request (one per item) is served without reading the annotator's session or the assignment.
IMAGE_LINK_SALT = "tessera.item-image"
IMAGE_LINK_MAX_AGE = 12 * 60 * 60  # seconds; a page left open longer falls back to the session check
# The address signs the session, the stored name and an expiry rounded up to the hour, with no time
# of signing: it is the same string whenever it is made within the hour, so the next item's image,
# fetched ahead (``prefetch``), is the very address its page then shows (the browser's cache is by
# address). It lives IMAGE_LINK_MAX_AGE to IMAGE_LINK_MAX_AGE + 1 h.
IMAGE_LINK_ROUNDING = 60 * 60


def item_image_link(assignment, image=None) -> str:
    """The address of the image of ``assignment``'s item (or of its ``image``, one of its several
    ``ItemImage`` rows), signed for its session (``session_image_link``)."""
    name = (image.image if image is not None else assignment.item.image).name
    return session_image_link(assignment.session_id, name)


def session_image_link(session_pk: int, name: str, *, now: float | None = None) -> str:
    """The address of the stored image ``name`` signed for the annotator's session ``session_pk``:
    a deterministic token (``IMAGE_LINK_ROUNDING``) that ``item_image_name`` reads back."""
    now = time.time() if now is None else now
    until = (int(now + IMAGE_LINK_MAX_AGE) // IMAGE_LINK_ROUNDING + 1) * IMAGE_LINK_ROUNDING
    token = signing.Signer(salt=IMAGE_LINK_SALT).sign_object([session_pk, name, until])
    return reverse("annotation:item-image-signed", args=[token])


def image_srcset(link: str, width: int | None, derived: list[int] | None) -> str:
    """The ``srcset`` of an image at ``link`` (``item_image_link``): its lighter copies the row records
    (``studies.derivatives``), each by its width, and the original at its own; "" when it has none."""
    if not derived or not width:
        return ""
    return ", ".join([*(f"{link}?w={w} {w}w" for w in derived), f"{link} {width}w"])


def item_image_name(token: str, *, now: float | None = None) -> str | None:
    """The stored image name a signed image address names, or None when its token is missing,
    altered or expired."""
    try:
        _session, name, until = signing.Signer(salt=IMAGE_LINK_SALT).unsign_object(token)
    except (signing.BadSignature, ValueError, TypeError):
        return None
    if not isinstance(until, int) or until <= (time.time() if now is None else now):
        return None
    return name if isinstance(name, str) and name else None


def panel_entry_base(pool: CountryPool) -> str:
    """The pool's entry address with no parameter: a URL panel's links add their own."""
    return f"{settings.SITE_URL}{reverse('annotation:entry', args=[pool.entry_key])}"


def panel_shared_link(pool: CountryPool, panel) -> str:
    """A URL panel's one link (verification none), its parameters holding upper-case placeholders
    for the researcher to replace by the panel's own (e.g. SONA's ``%SURVEY_CODE%``)."""
    names = [(panel.participant_param, "PARTICIPANT_ID"), (panel.study_param, "STUDY_ID"),
             (panel.session_param, "SESSION_ID")]
    return panel_entry_base(pool) + "?" + "&".join(f"{name}={value}" for name, value in names if name)


def panel_signed_links(pool: CountryPool, panel, ids: list[str]) -> list[tuple[str, str]]:
    """(id, link) of each participant id: the pool's entry link with their id and their token."""
    base = panel_entry_base(pool)
    key = str(pool.entry_key)
    return [(pid, panels.signed_link(
        base=base, participant_param=panel.participant_param, participant_id=pid,
        token=panels.token_for(secret=panel.secret, entry_key=key, participant_id=pid),
    )) for pid in ids]
