from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from .files import image_response
from .selectors import ItemFilters, item_filter_choices, items_search, studies_for_user, study_for_user

ITEMS_PER_PAGE = 50


@login_required
def study_list(request):
    studies = studies_for_user(request.user).order_by("-created_at")
    return render(request, "studies/study_list.html", {"studies": studies})


@login_required
def item_image(request, pk: int, item_pk: int):
    study = study_for_user(request.user, pk)
    item = get_object_or_404(study.items, pk=item_pk)
    return image_response(item.image)


@login_required
@require_GET
def item_list(request, pk: int):
    """The study's items, searched and filtered, one page of ``ITEMS_PER_PAGE`` at a time."""
    study = study_for_user(request.user, pk)
    filters = ItemFilters.from_query(request.GET)
    page = Paginator(items_search(study=study, filters=filters), ITEMS_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "study": study, "filters": filters, "page": page, "query": query.urlencode(),
        **item_filter_choices(study=study),
    }
    return render(request, "studies/item_list.html", context)
