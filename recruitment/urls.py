"""Prolific's webhook: the one recruitment route that is not a researcher's page (those are
``workspace/urls.py``'s ``recruitment_urls``, joined to this in ``config/urls.py``)."""

from django.urls import path

from . import webhooks

app_name = "recruitment"
urlpatterns = [
    path("prolific/webhook/", webhooks.webhook, name="webhook"),
]
