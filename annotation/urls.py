from django.urls import path

from .views import flow, items, members, path_preview, preview, protocol_preview, review, seeding, study_items

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
    path("a/items/<int:pk>/upload", items.item_upload, name="item-upload"),
    path("a/items/<int:pk>/uploads/<uuid:token>", items.item_upload_image, name="item-upload-image"),
    path("a/end/", flow.end, name="end"),
    path("healthz", items.healthz, name="healthz"),
    # A preset's annotator form for a sample item, for the researcher's New study page.
    path("studies/presets/<slug:name>/preview", preview.preset_preview, name="preset-preview"),
    # A pool's whole annotator path, walked by any member of the study: nothing is stored.
    path("studies/<int:pk>/pools/<int:pool_pk>/preview/", path_preview.start, name="path-preview"),
    path("studies/<int:pk>/pools/<int:pool_pk>/preview/consent/", path_preview.consent, name="path-preview-consent"),
    path("studies/<int:pk>/pools/<int:pool_pk>/preview/eligibility/", path_preview.eligibility,
         name="path-preview-eligibility"),
    path("studies/<int:pk>/pools/<int:pool_pk>/preview/instructions/", path_preview.instructions,
         name="path-preview-instructions"),
    path("studies/<int:pk>/pools/<int:pool_pk>/preview/practice/", path_preview.mock, name="path-preview-mock"),
    path("studies/<int:pk>/pools/<int:pool_pk>/preview/items/", path_preview.items, name="path-preview-items"),
    path("studies/<int:pk>/pools/<int:pool_pk>/preview/items/<int:position>/", path_preview.item_submit,
         name="path-preview-item-submit"),
    path("studies/<int:pk>/pools/<int:pool_pk>/preview/items/<int:position>/draft", path_preview.item_draft,
         name="path-preview-item-draft"),
    path("studies/<int:pk>/pools/<int:pool_pk>/preview/items/<int:position>/upload", path_preview.item_upload,
         name="path-preview-item-upload"),
    path("studies/<int:pk>/pools/<int:pool_pk>/preview/end/", path_preview.end, name="path-preview-end"),
    # The protocol editor's annotator form (studies:protocol-edit loads it by htmx).
    path("studies/<int:pk>/protocol/preview", protocol_preview.protocol_preview, name="protocol-preview"),
    # The quality check: the study's owner and the pool's checkers review a sample of annotations.
    path("review/", review.review_home, name="review-home"),
    path("studies/<int:pk>/items/<int:item_pk>/", study_items.study_item, name="study-item"),
    # A study that feeds another (annotation.seeding): answer items made, kept prompts downloaded.
    path("studies/<int:pk>/seed/", seeding.seed, name="seed"),
    path("studies/<int:pk>/seed/answer-items", seeding.seed_answer_items, name="seed-answer-items"),
    path("studies/<int:pk>/seed/kept-prompts.csv", seeding.seed_kept_prompts, name="seed-kept-prompts"),
    # A study's members page (studies:members) invites here: a checker is an annotation row.
    path("studies/<int:pk>/members/invite", members.member_invite, name="member-invite"),
    path("studies/<int:pk>/checkers/<int:checker_pk>/remove", members.checker_remove, name="checker-remove"),
    path("invitations/<str:token>/", members.invitation, name="invitation"),
    path("studies/<int:pk>/review/", review.review_study, name="review-study"),
    path("studies/<int:pk>/review/<int:pool_pk>/", review.review_pool, name="review-pool"),
    path("studies/<int:pk>/review/<int:pool_pk>/target", review.review_target, name="review-target"),
    path("studies/<int:pk>/review/<int:pool_pk>/<int:annotation_pk>/", review.review_submit, name="review-submit"),
    path("studies/<int:pk>/review/<int:pool_pk>/<int:annotation_pk>/image", review.review_image, name="review-image"),
    path("studies/<int:pk>/review/<int:pool_pk>/<int:annotation_pk>/uploads/<uuid:token>", review.review_upload_image,
         name="review-upload-image"),
]
