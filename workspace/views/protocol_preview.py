"""The annotator's form of a spec being edited, for the protocol editor (``workspace/views/protocol.py``
loads it by htmx, posting the text typed), by the annotator's own field templates. Owner only;
nothing is stored."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation.preview import SAMPLE_ITEM, item_preview_context, sample_fields
from studies.protocol import spec_read
from studies.selectors import study_for_user, study_sample_item


@login_required
@require_POST
def protocol_preview(request, pk: int):
    """Not a write: the typed spec rendered for a sample item of the study (a real item routed to a
    pool when there is one, else the made-up one), or a note while the spec has problems."""
    study = study_for_user(request.user, pk)
    read = spec_read(request.POST.get("spec", ""))
    if not read.ok:
        return render(request, "annotation/_protocol_preview.html", {"study": study, "invalid": True})
    item = study_sample_item(study=study)
    context = item_preview_context(item) if item else SAMPLE_ITEM
    return render(request, "annotation/_protocol_preview.html", {
        "study": study,
        "spec": read.protocol,
        "fields": sample_fields(read.protocol, context),
        "item": item,
        "texts": context.texts,
        "image_url": reverse("studies:item-image", args=[study.pk, item.pk]) if item and item.image else "",
    })
