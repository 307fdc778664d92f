"""The analysis's forms, shared by its pages and the API: an analysis run's options, a metric file."""

from decimal import Decimal

from django import forms

from stats.planner import MIN_PILOT_UNITS

from . import metrics
from .models import DEFAULT_RESAMPLES, MAX_RESAMPLES, MAX_SEED


class AnalysisForm(forms.Form):
    complete_only = forms.BooleanField(
        required=False, label="Reports and metric correlation only on prompts that have images from every model"
    )
    resamples = forms.IntegerField(
        required=False, min_value=0, max_value=MAX_RESAMPLES, initial=DEFAULT_RESAMPLES, label="Bootstrap resamples",
        help_text=f"behind each alpha's 95% interval; 0 for no interval, at most {MAX_RESAMPLES:,}",
    )
    seed = forms.IntegerField(
        required=False, min_value=0, max_value=MAX_SEED, initial=0, label="Seed",
        help_text="the same seed gives the same intervals"
    )

    def clean(self):
        """A field left empty takes its default."""
        data = super().clean()
        for name in ("resamples", "seed"):
            if data.get(name) is None and name not in self.errors:
                data[name] = self.fields[name].initial
        return data


class MetricUploadForm(forms.Form):
    file = forms.FileField(label="Metric scores (CSV)")

    def clean_file(self):
        file = self.cleaned_data["file"]
        if file.size > metrics.MAX_UPLOAD_BYTES:
            raise forms.ValidationError(
                f"the file is larger than {metrics.MAX_UPLOAD_BYTES // (1024 * 1024)} MB"
            )
        return file


class PlannerForm(forms.Form):
    """The sample-size planner's choices: which field and pool, the prior where there is no pilot,
    the interval width aimed at, and Prolific's prices (in the workspace's currency)."""

    field = forms.ChoiceField(label="Question")
    pool = forms.ChoiceField(label="Country pool", required=False, help_text="its pilot answers, if any")
    target = forms.DecimalField(
        label="Interval width aimed at", min_value=Decimal("0.02"), max_value=Decimal("1"), decimal_places=2,
        initial=Decimal("0.2"), help_text="the width of alpha's 95% interval you can live with (0.2: ±0.1)",
    )
    prior_alpha = forms.DecimalField(
        label="Expected alpha without a pilot", min_value=Decimal("0.05"), max_value=Decimal("0.95"),
        decimal_places=2, initial=Decimal("0.5"),
        help_text=f"used for a pool with fewer than {MIN_PILOT_UNITS} items rated twice; the seed studies saw 0.3–0.6",
    )
    reward = forms.DecimalField(
        label="Reward per session", min_value=Decimal("0.01"), max_value=Decimal("1000"), decimal_places=2,
        initial=Decimal("1.50"), help_text="what one participant is paid for a session of the study's items",
    )
    currency = forms.ChoiceField(label="Currency", choices=[("GBP", "GBP (£)"), ("USD", "USD ($)")], initial="GBP")
    fee = forms.DecimalField(
        label="Prolific's service fee, %", min_value=0, max_value=100, decimal_places=2, initial=Decimal("33.33"),
        help_text="on rewards; check your workspace's rate",
    )
    vat = forms.DecimalField(label="VAT on the fee, %", min_value=0, max_value=100, decimal_places=2,
                             initial=Decimal("20"), help_text="0 where your institution does not pay VAT")
    returns = forms.IntegerField(label="Places returned or timed out, %", min_value=0, max_value=90, initial=10,
                                 help_text="re-opened, not paid")
    exclusions = forms.IntegerField(label="Annotators excluded by quality control, %", min_value=0, max_value=90,
                                    initial=10, help_text="paid, their answers not counted")

    def __init__(self, *args, fields: list[tuple[str, str]], pools: list[tuple[str, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["field"].choices = fields
        self.fields["pool"].choices = [("", "Every pool together"), *pools]
