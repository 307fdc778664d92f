"""The annotator form of a preset, shown to a researcher starting a study (the New study page links
here), by the annotator's own field templates."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render

from annotation.preview import SAMPLE_ITEM, sample_fields
from studies.protocol import parse_spec
from studies.services import preset_get


@login_required
def preset_preview(request, name: str):
    if not request.user.is_staff:
        raise Http404
    try:
        preset = preset_get(name)
    except ValueError:
        raise Http404 from None
    spec = parse_spec(preset.protocol)
    return render(request, "annotation/preset_preview.html", {
        "preset": preset,
        "spec": spec,
        "fields": sample_fields(spec),
        "texts": SAMPLE_ITEM.texts,
    })
