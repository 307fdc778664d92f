"""The annotator's pages (entry link, onboarding, items, end), the health check, and the checker's
quality review. The researcher's pages of this namespace are ``workspace/urls.py``'s
``annotation_urls``, joined to these in ``config/urls.py``."""

from django.urls import path

from .views import flow, items, review

app_name = "annotation"
urlpatterns = [
    path("join/<uuid:key>/", flow.entry, name="entry"),
    path("a/", flow.next_step, name="next"),
    path("a/resume/", flow.resume, name="resume"),
    path("a/switch/<int:session_pk>/", flow.switch, name="switch"),
    path("a/consent/", flow.consent, name="consent"),
    path("a/eligibility/", flow.eligibility, name="eligibility"),
    path("a/instructions/", flow.instructions, name="instructions"),
    path("a/practice/", flow.mock, name="mock"),
    path("a/practice/<int:item_pk>/image", flow.example_image, name="example-image"),
    path("a/items/", items.item_page, name="items"),
    path("a/items/<int:pk>/", items.item_submit, name="item-submit"),
    path("a/items/<int:pk>/draft", items.item_draft, name="item-draft"),
    path("a/items/<int:pk>/image", items.item_image, name="item-image"),
    path("a/images/<str:token>", items.item_image_signed, name="item-image-signed"),
    path("a/items/<int:pk>/upload", items.item_upload, name="item-upload"),
    path("a/items/<int:pk>/uploads/<uuid:token>", items.item_upload_image, name="item-upload-image"),
    path("a/end/", flow.end, name="end"),
    path("healthz", items.healthz, name="healthz"),
    # The quality check: the study's owner and the pool's checkers review a sample of annotations.
    path("review/", review.review_home, name="review-home"),
    path("studies/<int:pk>/review/", review.review_study, name="review-study"),
    path("studies/<int:pk>/review/<int:pool_pk>/", review.review_pool, name="review-pool"),
    path("studies/<int:pk>/review/<int:pool_pk>/target", review.review_target, name="review-target"),
    path("studies/<int:pk>/review/<int:pool_pk>/<int:annotation_pk>/", review.review_submit, name="review-submit"),
    path("studies/<int:pk>/review/<int:pool_pk>/<int:annotation_pk>/image", review.review_image, name="review-image"),
    path("studies/<int:pk>/review/<int:pool_pk>/<int:annotation_pk>/uploads/<uuid:token>", review.review_upload_image,
         name="review-upload-image"),
]
