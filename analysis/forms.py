"""The analysis's forms, shared by its pages and the API: an analysis run's options, a metric file."""

from django import forms

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
