"""Removing a country pool: a page that says what goes with the pool (or why it stays), and its
button (the rule and the removal are ``recruitment.services.pool_delete``, the highest app a pool's
rows reach). The pool list (``studies:pool-list``) links here."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from recruitment import selectors, services
from studies.selectors import pool_for_user


@login_required
@require_http_methods(["GET", "POST"])
def pool_remove(request, pk: int, pool_pk: int):
    pool = pool_for_user(request.user, pk, pool_pk, write=True)
    if request.method == "POST":
        try:
            services.pool_delete(pool=pool)
        except services.PoolKept as kept:
            messages.error(request, str(kept))
        else:
            messages.success(request, f"The pool for {pool.country_name} is removed.")
        return redirect("studies:pool-list", pk)
    return render(request, "recruitment/pool_remove.html", {
        "study": pool.study,
        "refusal": services.pool_delete_refusal(pool=pool),
        "removal": selectors.pool_removal(pool=pool),
    })
