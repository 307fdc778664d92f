from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

from annotation import urls as annotation_urls
from recruitment import urls as recruitment_urls
from workspace import urls as workspace

admin.site.site_header = "Tessera"
admin.site.site_title = "Tessera admin"

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="studies:study-list", permanent=False)),
    path("admin/", admin.site.urls),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the annotator's language menu
    # The researcher's pages (workspace/) under the namespaces they have always had; the annotator's,
    # the checker's and the webhook's routes from their own apps, joined under the same namespace.
    path("studies/", include((workspace.studies_urls, "studies"))),
    path("studies/", include((workspace.analysis_urls, "analysis"))),
    path("studies/", include((workspace.exports_urls, "exports"))),
    path("", include((recruitment_urls.urlpatterns + workspace.recruitment_urls, "recruitment"))),
    path("", include((annotation_urls.urlpatterns + workspace.annotation_urls, "annotation"))),
    path("", include("api.urls")),  # api/v1/…, api/schema/, api/docs/ and settings/api-tokens/
]

# No URL serves MEDIA_ROOT, in any mode (DEBUG=1, the demo, included): item images, annotators'
# uploads, examples, review images and exports are read only through views that check access first
# (studies/files.py serves them, or redirects to a short-lived signed URL of S3).
