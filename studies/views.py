from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, render

from .files import image_response
from .selectors import studies_for_user, study_for_user


@login_required
def study_list(request):
    studies = studies_for_user(request.user).order_by("-created_at")
    return render(request, "studies/study_list.html", {"studies": studies})


@login_required
def item_image(request, pk: int, item_pk: int):
    study = study_for_user(request.user, pk)
    item = get_object_or_404(study.items, pk=item_pk)
    return image_response(item.image)
