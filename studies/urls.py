from django.urls import path

from . import member_views, practice_views, protocol_views, translation_views, views

app_name = "studies"
urlpatterns = [
    path("", views.study_list, name="study-list"),
    path("<int:pk>/items/", views.item_list, name="item-list"),
    path("new", views.study_new, name="study-new"),
    path("markdown-preview", views.markdown_preview, name="markdown-preview"),
    path("<int:pk>/settings", views.study_settings, name="study-settings"),
    path("<int:pk>/status", views.study_status, name="study-status"),
    path("<int:pk>/delete", views.study_remove, name="study-delete"),
    path("<int:pk>/pools", views.pool_list, name="pool-list"),
    path("<int:pk>/pools/new", views.pool_add, name="pool-add"),
    path("<int:pk>/pools/new-several", views.pool_add_several, name="pool-add-several"),
    path("<int:pk>/pools/<int:pool_pk>/edit", views.pool_edit, name="pool-edit"),
    # A pool's removal is recruitment:pool-remove (it reaches the pool's annotators and Prolific study).
    path("<int:pk>/items/<int:item_pk>/image", views.item_image, name="item-image"),
    # The protocol editor; the annotator's form beside it comes from annotation:protocol-preview.
    path("<int:pk>/protocol", protocol_views.protocol_edit, name="protocol-edit"),
    path("<int:pk>/protocol/check", protocol_views.protocol_check, name="protocol-check"),
    # The practice test's questions.
    path("<int:pk>/practice", practice_views.practice_list, name="practice"),
    path("<int:pk>/practice/new", practice_views.practice_add, name="practice-add"),
    path("<int:pk>/practice/<int:question_pk>/edit", practice_views.practice_edit, name="practice-edit"),
    path("<int:pk>/practice/<int:question_pk>/delete", practice_views.practice_delete, name="practice-delete"),
    path("<int:pk>/practice/attempts", practice_views.practice_attempts, name="practice-attempts"),
    path("<int:pk>/practice/examples", practice_views.practice_example, name="practice-example"),
    # The researcher's texts in other languages (``studies.translations``).
    path("<int:pk>/translations", translation_views.translation_list, name="translation-list"),
    path("<int:pk>/translations/<str:language>", translation_views.translation_edit, name="translation-edit"),
    path("<int:pk>/members", member_views.member_list, name="members"),
    path("<int:pk>/members/<int:member_pk>/role", member_views.member_role, name="member-role"),
    path("<int:pk>/members/<int:member_pk>/remove", member_views.member_remove, name="member-remove"),
    path("<int:pk>/invitations/<int:invitation_pk>/revoke", member_views.invitation_revoke,
         name="invitation-revoke"),
]
