from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from studies.selectors import study_for_user


@login_required
def study_dashboard(request, pk: int):
    study = study_for_user(request.user, pk)
    return render(request, "exports/study_dashboard.html", {"study": study})
