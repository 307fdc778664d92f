from django.urls import path

from . import views

app_name = "recruitment"
urlpatterns = [
    path("settings/", views.token_settings, name="token-settings"),
    path("settings/token/", views.token_save, name="token-save"),
    path("settings/token/remove/", views.token_remove, name="token-remove"),
]
