"""The researcher's study pages: the study list, a new study (from a preset or a copy), a study's
settings, status and deletion, its country pools, and its item list. Every lookup is scoped."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from studies import services
from studies.files import image_response
from studies.forms import PoolForm, PoolsForm, StudyForm
from studies.markdown import render_markdown
from studies.protocol import parse_spec
from studies.selectors import (
    ItemFilters,
    is_researcher,
    item_filter_choices,
    items_search,
    may_create_studies,
    pool_for_user,
    pool_plans,
    studies_for_user,
    study_for_user,
)
from studies.translations import translation_warnings

ITEMS_PER_PAGE = 50


@login_required
def study_list(request):
    studies = studies_for_user(request.user).select_related("owner").order_by("-created_at")
    return render(request, "studies/study_list.html", {"studies": studies})


@login_required
def item_image(request, pk: int, item_pk: int):
    """The item's image, or with ``?n=`` one of a comparison's images, to a member of the study."""
    study = study_for_user(request.user, pk)
    image = get_object_or_404(study.items, pk=item_pk).image_at(request.GET.get("n", ""))
    if image is None:
        raise Http404("no such image")
    return image_response(image)


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
def _researcher(request) -> None:
    """Researchers (``may_create_studies``) make studies; anyone else finds no such page."""
    if not may_create_studies(request.user):
        raise Http404


def _start(request):
    """What the new study starts from, by the query string: (preset, None), (None, source study)
    or (None, None) when nothing is chosen yet. An unknown preset or another's study is a 404."""
    if name := request.GET.get("preset"):
        try:
            return services.preset_get(name), None
        except ValueError:
            raise Http404 from None
    if pk := request.GET.get("copy"):
        if not pk.isdigit():
            raise Http404
        return None, study_for_user(request.user, int(pk))
    return None, None


@login_required
@require_http_methods(["GET", "POST"])
def study_new(request):
    _researcher(request)
    preset, source = _start(request)
    if preset is None and source is None:
        return render(request, "studies/study_start.html", {
            "presets": [(p, parse_spec(p.protocol)) for p in services.presets_list()],
            "studies": studies_for_user(request.user).order_by("-created_at"),
        })
    if preset is not None:
        initial = {"name": preset.title, **preset.study, **services.completion_codes()}
    else:
        initial = {
            "name": f"{source.name} (copy)", **{f: getattr(source, f) for f in services.STUDY_SETTINGS},
            **services.completion_codes(),
        }
    form = StudyForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        name, settings = form.cleaned_data["name"], form.settings()
        if preset is not None:
            study = services.study_create_from_preset(owner=request.user, preset=preset.name, name=name, **settings)
        else:
            study = services.study_create_from_study(owner=request.user, source=source, name=name, **settings)
        messages.success(request, f"“{study.name}” is created. Add its country pools next.")
        return redirect("studies:pool-list", study.pk)
    return _study_form_page(request, form, preset=preset, source=source, action=request.get_full_path())


@login_required
@require_http_methods(["GET", "POST"])
def study_settings(request, pk: int):
    study = study_for_user(request.user, pk, write=request.method == "POST")
    form = StudyForm(request.POST or None, instance=study)
    if request.method == "POST" and form.is_valid():
        try:
            services.study_update(study=study, name=form.cleaned_data["name"], **form.settings())
        except services.WorkspaceError as refused:
            form.add_error(refused.field, str(refused))
            study.refresh_from_db()
        else:
            messages.success(request, "The settings are saved.")
            return redirect("analysis:study-dashboard", study.pk)
    return _study_form_page(request, form, study=study, action=reverse("studies:study-settings", args=[study.pk]))


def _study_form_page(request, form: StudyForm, **context):
    """The study form, its Markdown shown rendered as the annotator pages render it."""
    return render(request, "studies/study_form.html", {
        "form": form,
        "instructions_html": render_markdown(form["instructions_md"].value()),
        "consent_html": render_markdown(form["consent_md"].value()),
        **context,
    }, status=400 if form.errors else 200)


PREVIEWED = ("instructions_md", "consent_md")


@login_required
@require_POST
def markdown_preview(request):
    """The Markdown of one textarea, rendered as the annotator will see it (an htmx fragment).
    htmx posts the whole form and names the textarea typed in (``HX-Trigger-Name``); a post
    without it previews the first of the two it holds. Nothing is stored: any researcher (staff,
    or a member of a study, as an invited co-researcher is) may ask."""
    if not is_researcher(request.user):
        raise Http404
    typed = request.headers.get("HX-Trigger-Name")
    name = typed if typed in PREVIEWED else next((n for n in PREVIEWED if n in request.POST), "")
    return render(request, "studies/_markdown_preview.html", {"html": render_markdown(request.POST.get(name, ""))})


@login_required
def pool_list(request, pk: int):
    study = study_for_user(request.user, pk)
    plans = pool_plans(study)
    return render(request, "studies/pool_list.html", {
        "study": study, "plans": plans, **translation_warnings(study, [plan.pool for plan in plans])})


@login_required
@require_http_methods(["GET", "POST"])
def pool_add(request, pk: int):
    study = study_for_user(request.user, pk, write=request.method == "POST")
    form = PoolForm(request.POST or None, study=study)
    if request.method == "POST" and form.is_valid():
        try:
            (pool,) = services.pools_create(study=study, countries=[form.cleaned_data["country"]], **form.settings())
        except services.WorkspaceError as refused:
            form.add_error("country", str(refused))
        else:
            messages.success(request, f"The pool for {pool.country_name} is added.")
            return redirect("studies:pool-list", study.pk)
    return render(request, "studies/pool_form.html", {"form": form, "study": study}, status=400 if form.errors else 200)


@login_required
@require_http_methods(["GET", "POST"])
def pool_add_several(request, pk: int):
    """Several pools at once (a list of countries) with shared settings: all are added, or none."""
    study = study_for_user(request.user, pk, write=request.method == "POST")
    form = PoolsForm(request.POST or None, study=study)
    if request.method == "POST" and form.is_valid():
        try:
            pools = services.pools_create(study=study, countries=form.cleaned_data["countries"], **form.settings())
        except services.WorkspaceError as refused:
            form.add_error("countries", str(refused))
        else:
            messages.success(request, f"{len(pools)} pools are added: {', '.join(p.country_name for p in pools)}.")
            return redirect("studies:pool-list", study.pk)
    context = {"form": form, "study": study, "several": True}
    return render(request, "studies/pool_form.html", context, status=400 if form.errors else 200)


@login_required
@require_http_methods(["GET", "POST"])
def pool_edit(request, pk: int, pool_pk: int):
    pool = pool_for_user(request.user, pk, pool_pk, write=request.method == "POST")
    form = PoolForm(request.POST or None, instance=pool, study=pool.study)
    if request.method == "POST" and form.is_valid():
        try:
            services.pool_update(pool=pool, **form.settings())
        except services.WorkspaceError as refused:
            form.add_error(refused.field, str(refused))
        else:
            messages.success(request, f"The pool for {pool.country_name} is saved.")
            return redirect("studies:pool-list", pk)
    return render(
        request, "studies/pool_form.html", {"form": form, "study": pool.study, "pool": pool},
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def study_status(request, pk: int):
    """Open the study to annotators, close it, or reopen it (the button's ``status``)."""
    study = study_for_user(request.user, pk, write=True)
    try:
        services.study_set_status(study=study, status=request.POST.get("status", ""))
    except services.WorkspaceError as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, STATUS_SAID[study.status])
    return redirect("analysis:study-dashboard", study.pk)


STATUS_SAID = {
    "open": "The study is open: its entry links let annotators in.",
    "closed": "The study is closed: its entry links turn new annotators away; those already in finish their session.",
}


@login_required
@require_POST
def study_remove(request, pk: int):
    """Delete the study with everything collected for it: its owner only, the study not open, and
    its name typed again (a slip of the mouse deletes nothing)."""
    study = study_for_user(request.user, pk, owner_only=True)
    if study.is_open:
        messages.error(request, "Close the study before deleting it: annotators may be at work.")
    elif request.POST.get("confirm_name", "").strip() != study.name:
        messages.error(request, "Type the name of the study exactly to delete it; nothing was deleted.")
    else:
        services.study_delete(study=study)
        messages.success(request, f"The study “{study.name}” and everything collected for it are deleted.")
        return redirect("studies:study-list")
    return redirect(reverse("studies:study-settings", args=[study.pk]) + "#delete")
