from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from . import analyses, annotations, exports, items, prolific, prolific_messages, reviews, token_views, views
from . import rounds as rounds_api  # rounds: participant groups and the block list

app_name = "api"

urlpatterns = [
    # the researcher's tokens page (the browser's)
    path("settings/api-tokens/", token_views.token_list, name="token-settings"),
    path("settings/api-tokens/new/", token_views.token_create, name="token-create"),
    path("settings/api-tokens/<int:token_pk>/revoke/", token_views.token_revoke, name="token-revoke"),
    # the schema and its docs (Swagger UI from drf-spectacular-sidecar's static files)
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    # version 1
    path("api/v1/presets/", views.PresetList.as_view(), name="preset-list"),
    path("api/v1/studies/", views.StudyList.as_view(), name="study-list"),
    path("api/v1/studies/<int:pk>/", views.StudyDetail.as_view(), name="study-detail"),
    path("api/v1/studies/<int:pk>/protocol-versions/", views.ProtocolVersionList.as_view(), name="protocol-versions"),
    path("api/v1/studies/<int:pk>/pools/", views.PoolList.as_view(), name="pool-list"),
    path("api/v1/studies/<int:pk>/pools/<int:pool_id>/", views.PoolDetail.as_view(), name="pool-detail"),
    path("api/v1/studies/<int:pk>/pools/<int:pool_id>/panel/", views.PanelDetail.as_view(), name="pool-panel"),
    path("api/v1/studies/<int:pk>/pools/<int:pool_id>/panel/links/", views.PanelLinks.as_view(),
         name="pool-panel-links"),
    path(
        "api/v1/studies/<int:pk>/pools/<int:pool_id>/progress/", views.PoolProgressView.as_view(),
        name="pool-progress",
    ),
    *items.urlpatterns,
    *annotations.urlpatterns,
    *analyses.urlpatterns,
    *exports.urlpatterns,
    *reviews.urlpatterns,
    *prolific_messages.urlpatterns,  # before prolific's …/prolific/<verb>/
    *prolific.urlpatterns,
    # rounds: the researcher's participant groups and block list (api/rounds.py)
    *rounds_api.urlpatterns,
    # any other address under api/: a JSON 404, never the site's HTML page
    re_path(r"^api/", views.nowhere, name="nowhere"),
]
