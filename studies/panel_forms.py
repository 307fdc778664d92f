"""The pool's panel page's forms: the panel's settings, and a list of participant ids to sign links for."""

from __future__ import annotations

from django import forms

from . import panels
from .models import PoolPanel
from .panel_services import PANEL_SETTINGS, panel_problems

PLACEHOLDER_HELP = (
    "An http(s) address; {participant_id}, {study_id}, {session_id}, {code} (the study's completion code of "
    "the ending) and {outcome} are filled in."
)


class PanelForm(forms.ModelForm):
    """Where a pool recruits: Prolific (the default), or a URL-parameter panel with its link's
    parameters, its completion link per ending and how entries are verified."""

    class Meta:
        model = PoolPanel
        fields = list(PANEL_SETTINGS)
        labels = {
            "kind": "Recruited through",
            "url_completed": "Completion link: completed",
            "url_screened_out": "Completion link: screened out (not eligible, failed the practice test)",
            "url_no_consent": "Completion link: no consent",
            "url_failed_checks": "Completion link: failed attention checks",
            "url_returned": "Completion link: left without answers (skipped every item)",
        }
        help_texts = {
            "kind": "Prolific pools are launched from the study's Prolific page; a URL panel's pool is skipped there.",
            "participant_param": "The entry link's parameter that carries the panel's participant id.",
            "study_param": "Optional: a parameter carrying the panel's study id (kept with the session).",
            "session_param": "Optional: a parameter carrying the panel's session id; without it, one session "
            "per participant.",
            "verification": "Signed: Tessera makes each participant's link (ids known in advance, e.g. a lab's "
            "list). None: anyone who edits the link can enter under any id; their answers are recorded as "
            "unverified.",
            "url_completed": PLACEHOLDER_HELP,
            "url_screened_out": "Blank: the completed link.",
            "url_no_consent": "Blank: the screened-out link, else the completed one.",
            "url_failed_checks": "Blank: the completed link.",
            "url_returned": "Blank: the screened-out link, else the completed one.",
        }
        widgets = {f"url_{ending}": forms.URLInput(attrs={"spellcheck": "false"}) for ending in panels.ENDINGS}

    def clean(self):
        cleaned = super().clean()
        for field, message in panel_problems(cleaned).items():
            if field in self.fields and field not in self.errors:
                self.add_error(field, message)
        return cleaned

    def settings(self) -> dict:
        return dict(self.cleaned_data)


class LinksForm(forms.Form):
    """Participant ids, one a line (or separated by commas), to sign links for."""

    ids = forms.CharField(
        label="Participant ids", widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false"}),
        help_text="One a line, or separated by commas: letters, digits, dots, dashes and underscores (at most 64). "
        "At most 5,000 at once.",
    )

    MAX_IDS = 5000

    def clean_ids(self) -> list[str]:
        ids, bad = panels.ids_read(self.cleaned_data["ids"])
        if bad:
            shown = ", ".join(bad[:5]) + ("…" if len(bad) > 5 else "")
            raise forms.ValidationError(f"Not an id: {shown} (letters, digits, dots, dashes, underscores; 64 at most).")
        if not ids:
            raise forms.ValidationError("Paste at least one id.")
        if len(ids) > self.MAX_IDS:
            raise forms.ValidationError(f"{len(ids)} ids: at most {self.MAX_IDS} at once.")
        return ids
