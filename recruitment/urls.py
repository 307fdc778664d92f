from django.urls import path

from . import views, webhooks

app_name = "recruitment"
urlpatterns = [
    path("settings/", views.token_settings, name="token-settings"),
    path("settings/token/", views.token_save, name="token-save"),
    path("settings/token/remove/", views.token_remove, name="token-remove"),
    path("webhook/", webhooks.webhook, name="webhook"),
    path("studies/<int:pk>/", views.study_prolific, name="study-prolific"),
    path("studies/<int:pk>/webhooks/", views.study_webhooks, name="study-webhooks"),
    path("studies/<int:pk>/policy/", views.study_policy, name="study-policy"),
    path("studies/<int:pk>/launch/", views.study_launch, name="study-launch"),
    path("studies/<int:pk>/pools/<int:pool_pk>/preview/", views.pool_preview, name="pool-preview"),
    path("studies/<int:pk>/<str:verb>/", views.study_transition, name="study-transition"),
]
