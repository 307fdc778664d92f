"""A pool's panel page: where the pool recruits (Prolific, or a URL-parameter panel such as
CloudResearch Connect, Besample, SONA or a lab's own list), and a URL panel's signed links for a
list of participant ids, on the page or as a CSV file. Read by every member; changed by the owner
and editors; the signing secret shown to, and renewed by, the owner alone."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotation.links import panel_shared_link, panel_signed_links
from recruitment.selectors import panel_change_problem
from studies.models import PoolPanel, panel_of
from studies.panel_forms import LinksForm, PanelForm
from studies.panel_services import PanelError, pool_panel_secret_rotate, pool_panel_set
from studies.panels import links_csv
from studies.selectors import pool_for_user


@login_required
@require_http_methods(["GET", "POST"])
def pool_panel(request, pk: int, pool_pk: int):
    pool = pool_for_user(request.user, pk, pool_pk, write=request.method == "POST")
    instance = PoolPanel.objects.filter(pool=pool).first() or PoolPanel(pool=pool)
    form = PanelForm(request.POST or None, instance=instance)
    if request.method == "POST" and form.is_valid() and _prolific_kept(form, pool):
        try:
            panel = pool_panel_set(pool=pool, **form.settings())
        except PanelError as refused:
            form.add_error(refused.field, str(refused))
        else:
            messages.success(request, f"The pool for {pool.country_name} recruits through {panel.label}.")
            return redirect("studies:pool-panel", pk, pool.pk)
    panel = panel_of(pool)
    return render(request, "studies/pool_panel.html", {
        "form": form, "study": pool.study, "pool": pool, "panel": panel,
        "shared_link": panel_shared_link(pool, panel) if panel is not None else "",
        "secret": panel.secret if panel is not None and pool.study.access.is_owner else "",
    }, status=400 if form.errors else 200)


def _prolific_kept(form, pool) -> bool:
    """A pool with a study on Prolific stays on Prolific: moving it is refused next to the choice."""
    problem = panel_change_problem(pool=pool, kind=form.cleaned_data.get("kind") or "")
    if problem:
        form.add_error("kind", problem)
    return not problem


@login_required
@require_POST
def pool_panel_secret(request, pk: int, pool_pk: int):
    """A new signing secret (the owner's): every signed link issued before stops working."""
    pool = pool_for_user(request.user, pk, pool_pk, write=True, owner_only=True)
    pool_panel_secret_rotate(pool=pool)
    messages.success(request, "The signing secret is renewed: links issued before no longer open the study.")
    return redirect("studies:pool-panel", pk, pool.pk)


@login_required
@require_http_methods(["GET", "POST"])
def pool_panel_links(request, pk: int, pool_pk: int):
    """Signed links for pasted ids (the owner's and editors'): shown, or downloaded as CSV."""
    pool = pool_for_user(request.user, pk, pool_pk, write=True)
    panel = panel_of(pool)
    if panel is None or panel.verification != PoolPanel.Verification.SIGNED:
        messages.error(request, "Signed links are for a pool on a URL panel with signed links.")
        return redirect("studies:pool-panel", pk, pool.pk)
    form = LinksForm(request.POST or None)
    links: list[tuple[str, str]] = []
    if request.method == "POST" and form.is_valid():
        links = panel_signed_links(pool, panel, form.cleaned_data["ids"])
        if request.POST.get("as") == "csv":
            response = HttpResponse(links_csv(links), content_type="text/csv; charset=utf-8")
            response["Content-Disposition"] = f'attachment; filename="links-study-{pk}-{pool.country}.csv"'
            response["Cache-Control"] = "no-store"
            return response
    return render(request, "studies/pool_panel_links.html", {
        "form": form, "study": pool.study, "pool": pool, "panel": panel, "links": links,
    }, status=400 if form.errors else 200)

