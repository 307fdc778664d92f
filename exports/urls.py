from django.urls import path

from . import views

app_name = "exports"
urlpatterns = [
    path("<int:pk>/", views.study_dashboard, name="study-dashboard"),
]
