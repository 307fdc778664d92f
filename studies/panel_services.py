"""A pool's panel set (Prolific, or a URL-parameter panel: ``studies.panels``), its signing secret
renewed; one rule for the workspace's page, the API and the commands."""

from __future__ import annotations

from django.db import transaction

from . import panels
from .models import CountryPool, PoolPanel


class PanelError(ValueError):
    """A panel's settings refused; ``field`` names the form field."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.field = field


PANEL_SETTINGS = (
    "kind", "name", "participant_param", "study_param", "session_param", "verification",
    *(f"url_{ending}" for ending in panels.ENDINGS),
)


def panel_problems(settings: dict) -> dict[str, str]:
    """Every refused setting of a panel, by field (the form shows each next to its field)."""
    if settings.get("kind", "prolific") != PoolPanel.Kind.URL:
        return {}
    problems = {}
    if not (settings.get("name") or "").strip():
        problems["name"] = "Name the panel, as participants know it (e.g. CloudResearch Connect)."
    for name in ("participant_param", "study_param", "session_param"):
        value = settings.get(name) or ""
        if value and not panels.PARAM_NAME_RE.match(value):
            problems[name] = "Letters, digits, dots, dashes and underscores only (at most 40)."
    if not settings.get("participant_param"):
        problems["participant_param"] = "Name the parameter that carries the participant's id."
    given = [settings.get(n) for n in ("participant_param", "study_param", "session_param") if settings.get(n)]
    if len(given) != len(set(given)) or panels.TOKEN_PARAM in given:
        problems.setdefault("participant_param", f"Each parameter needs its own name, and “{panels.TOKEN_PARAM}” "
                                                 "is the signed link's.")
    if not settings.get("url_completed"):
        problems["url_completed"] = "Give the panel's completion link: every ending falls back to it."
    for ending in panels.ENDINGS:
        template = settings.get(f"url_{ending}") or ""
        problem = panels.template_problem(template) if template else None
        if problem:
            problems[f"url_{ending}"] = problem
    return problems


def pool_panel_set(*, pool: CountryPool, **settings) -> PoolPanel:
    """The pool's panel saved (created the first time, with a fresh secret). Refused, naming the
    field, when a setting is wrong (``panel_problems``)."""
    problems = panel_problems(settings)
    if problems:
        field, message = next(iter(problems.items()))
        raise PanelError(message, field=field)
    values = {name: (settings.get(name) or "").strip() for name in PANEL_SETTINGS if name in settings}
    with transaction.atomic():
        panel, _ = PoolPanel.objects.select_for_update().get_or_create(pool=pool)
        for name, value in values.items():
            setattr(panel, name, value)
        panel.full_clean(exclude=["pool"])
        panel.save()
    pool.panel = panel
    return panel


def pool_panel_secret_rotate(*, pool: CountryPool) -> PoolPanel:
    """A new signing secret: every signed link issued before stops working."""
    with transaction.atomic():
        panel, _ = PoolPanel.objects.select_for_update().get_or_create(pool=pool)
        panel.secret = panels.secret_new()
        panel.save(update_fields=["secret"])
    return panel
