from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

admin.site.site_header = "Tessera"
admin.site.site_title = "Tessera admin"

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="studies:study-list", permanent=False)),
    path("admin/", admin.site.urls),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the annotator's language menu
    path("studies/", include("studies.urls")),
    path("studies/", include("analysis.urls")),
    path("studies/", include("exports.urls")),
    path("", include("recruitment.urls")),  # prolific/… and a pool's removal
    path("", include("annotation.urls")),
    path("", include("api.urls")),  # api/v1/…, api/schema/, api/docs/ and settings/api-tokens/
]

# No URL serves MEDIA_ROOT, in any mode (DEBUG=1, the demo, included): item images, annotators'
# uploads, examples, review images and exports are read only through views that check access first
# (studies/files.py serves them, or redirects to a short-lived signed URL of S3).
