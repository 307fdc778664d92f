from django.urls import include, path

from . import pool_views, review_views, views, webhooks

app_name = "recruitment"
prolific = [
    path("settings/", views.token_settings, name="token-settings"),
    path("settings/token/", views.token_save, name="token-save"),
    path("settings/token/remove/", views.token_remove, name="token-remove"),
    path("webhook/", webhooks.webhook, name="webhook"),
    path("studies/<int:pk>/", views.study_prolific, name="study-prolific"),
    path("studies/<int:pk>/webhooks/", views.study_webhooks, name="study-webhooks"),
    path("studies/<int:pk>/policy/", views.study_policy, name="study-policy"),
    path("studies/<int:pk>/launch/", views.study_launch, name="study-launch"),
    path("studies/<int:pk>/pools/<int:pool_pk>/preview/", views.pool_preview, name="pool-preview"),
    path("studies/<int:pk>/countries/", views.pool_countries, name="pool-countries"),
    path("studies/<int:pk>/pools/<int:pool_pk>/country/", views.pool_country, name="pool-country"),
    path("studies/<int:pk>/review/", review_views.review_page, name="review"),
    path("studies/<int:pk>/review/refresh/", review_views.review_refresh, name="review-refresh"),
    path("studies/<int:pk>/review/approve/", review_views.review_approve, name="review-approve"),
    path("studies/<int:pk>/review/submissions/<int:sub_pk>/reject/", review_views.review_reject, name="review-reject"),
    path("studies/<int:pk>/review/submissions/<int:sub_pk>/return/", review_views.review_return, name="review-return"),
    path("studies/<int:pk>/review/jobs/<int:job_pk>/", review_views.review_job, name="review-job"),
    path("studies/<int:pk>/review/bonuses/", review_views.bonus_new, name="bonus-new"),
    path("studies/<int:pk>/review/bonuses/<int:bonus_pk>/", review_views.bonus_page, name="bonus"),
    path("studies/<int:pk>/review/bonuses/<int:bonus_pk>/<str:step>/", review_views.bonus_send, name="bonus-send"),
    path("studies/<int:pk>/<str:verb>/", views.study_transition, name="study-transition"),
]

urlpatterns = [
    path("prolific/", include(prolific)),
    # Removing a pool reaches its Prolific study, so the page is recruitment's; its address is the pool's.
    path("studies/<int:pk>/pools/<int:pool_pk>/remove", pool_views.pool_remove, name="pool-remove"),
]
