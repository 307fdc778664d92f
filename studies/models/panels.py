"""A pool recruited on a generic URL-parameter panel instead of Prolific (``studies.panels``).

Kept beside ``CountryPool`` rather than on it: a pool without a ``PoolPanel`` is on Prolific, as
every pool was before, so nothing changes for those; the panel's settings and its secret are read
only by the entry link, the end page, the panel pages and the exports."""

from django.db import models
from django.db.models import Q

from .. import panels
from .study import CountryPool


class PoolPanel(models.Model):
    class Kind(models.TextChoices):
        PROLIFIC = "prolific", "Prolific"
        URL = "url", "Another panel (URL parameters)"

    class Verification(models.TextChoices):
        SIGNED = "signed", "Signed links issued by Tessera (ids known in advance)"
        NONE = "none", "None: the panel's id is taken as given (unverified)"

    pool = models.OneToOneField(CountryPool, on_delete=models.CASCADE, related_name="panel")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.PROLIFIC)
    name = models.CharField("panel name", max_length=80, blank=True, default="",
                            help_text="As the annotator knows it, e.g. CloudResearch Connect.")
    participant_param = models.CharField("participant id parameter", max_length=40, default="participant_id")
    study_param = models.CharField("study id parameter", max_length=40, blank=True, default="")
    session_param = models.CharField("session id parameter", max_length=40, blank=True, default="")
    verification = models.CharField(max_length=10, choices=Verification.choices, default=Verification.SIGNED)
    # The per-pool HMAC key of signed links: shown to the study's owner only, never logged or exported.
    secret = models.CharField(max_length=64, default=panels.secret_new, editable=False)
    url_completed = models.CharField("completion link: completed", max_length=500, blank=True, default="")
    url_screened_out = models.CharField("completion link: screened out", max_length=500, blank=True, default="")
    url_no_consent = models.CharField("completion link: no consent", max_length=500, blank=True, default="")
    url_failed_checks = models.CharField("completion link: failed checks", max_length=500, blank=True, default="")
    url_returned = models.CharField("completion link: left without answers", max_length=500, blank=True,
                                    default="")

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(kind="prolific") | (~Q(name="") & ~Q(url_completed="") & ~Q(participant_param="")),
                name="panel_url_complete",
            ),
        ]

    def __str__(self):
        return self.label

    @property
    def is_url(self) -> bool:
        return self.kind == self.Kind.URL

    @property
    def label(self) -> str:
        """The panel's name as exports and pages show it."""
        return self.name if self.is_url else "Prolific"

    def templates(self) -> dict[str, str]:
        return {ending: getattr(self, f"url_{ending}") for ending in panels.ENDINGS}


def panel_of(pool: CountryPool) -> PoolPanel | None:
    """The pool's URL panel, or None when it recruits on Prolific (no row, or a Prolific one).
    With ``select_related("panel")`` on the pool, no query."""
    try:
        panel = pool.panel
    except PoolPanel.DoesNotExist:
        return None
    return panel if panel.is_url else None


def panel_label(pool: CountryPool) -> str:
    panel = panel_of(pool)
    return panel.label if panel is not None else "Prolific"
