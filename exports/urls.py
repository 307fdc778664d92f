from django.urls import path

from . import views

app_name = "exports"
urlpatterns = [
    path("<int:pk>/exports/", views.export_start, name="export-start"),
    path("<int:pk>/exports/<int:job_pk>/status", views.export_status, name="export-status"),
    path("<int:pk>/exports/<int:job_pk>/cancel", views.export_cancel, name="export-cancel"),
    path("<int:pk>/exports/<int:job_pk>/download", views.export_download, name="export-download"),
    path("<int:pk>/exports/<int:job_pk>/manifest", views.export_manifest, name="export-manifest"),
]
