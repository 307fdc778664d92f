"""A pool's entry link: the one address annotators arrive at, as Prolific (or a demo) sends them."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlencode

from django.conf import settings
from django.urls import reverse

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
