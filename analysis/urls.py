from django.urls import path

from . import import_views, views

app_name = "analysis"
urlpatterns = [
    path("<int:pk>/", views.study_dashboard, name="study-dashboard"),
    path("<int:pk>/analysis/", views.analysis, name="analysis"),
    path("<int:pk>/analysis/<int:run_pk>/status", views.analysis_status, name="analysis-status"),
    path("<int:pk>/analysis/<int:run_pk>/result.json", views.analysis_result, name="analysis-result"),
    path("<int:pk>/metrics/", views.metrics_upload, name="metrics-upload"),
    path("<int:pk>/import/", import_views.import_items, name="import-items"),
    path("<int:pk>/import/<int:job_pk>/status", import_views.import_status, name="import-status"),
]
