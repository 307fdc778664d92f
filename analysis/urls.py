from django.urls import path

from . import annotator_views, import_views, views

app_name = "analysis"
urlpatterns = [
    path("<int:pk>/", views.study_dashboard, name="study-dashboard"),
    path("<int:pk>/progress/", views.study_progress, name="study-progress"),
    path("<int:pk>/pools/<int:pool_pk>/annotators/", annotator_views.pool_annotators, name="pool-annotators"),
    path("<int:pk>/annotators/<int:annotator_pk>/block", annotator_views.annotator_block, name="annotator-block"),
    path("<int:pk>/annotators/<int:annotator_pk>/unblock", annotator_views.annotator_unblock, name="annotator-unblock"),
    path("<int:pk>/annotators/<int:annotator_pk>/exclude", annotator_views.annotator_exclude, name="annotator-exclude"),
    path("<int:pk>/annotators/<int:annotator_pk>/include", annotator_views.annotator_include, name="annotator-include"),
    path("<int:pk>/analysis/", views.analysis, name="analysis"),
    path("<int:pk>/analysis/<int:run_pk>/status", views.analysis_status, name="analysis-status"),
    path("<int:pk>/analysis/<int:run_pk>/result.json", views.analysis_result, name="analysis-result"),
    path("<int:pk>/metrics/", views.metrics_upload, name="metrics-upload"),
    path("<int:pk>/import/", import_views.import_items, name="import-items"),
    path("<int:pk>/import/<int:job_pk>/status", import_views.import_status, name="import-status"),
    path("<int:pk>/import/sample.csv", import_views.import_sample, name="import-sample"),
]
