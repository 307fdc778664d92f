"""The researcher's pages, by the URL namespace each has always had (``studies:``, ``analysis:``,
``exports:``, and the researcher's half of ``annotation:`` and ``recruitment:``), so no name changed
when they moved here. ``config/urls.py`` mounts each list; the annotator's, the checker's and the
webhook's routes stay in their apps' own ``urls.py``, joined to these under one namespace."""

from django.urls import include, path

from .views import (
    analysis,
    annotators,
    check_items,
    exports,
    imports,
    invitations,
    members,
    panels,
    path_preview,
    payouts,
    planner,
    pool_removal,
    practice,
    preset_preview,
    prolific,
    prolific_messages,
    prolific_trials,
    protocol,
    protocol_preview,
    rounds,
    seeding,
    studies,
    study_items,
    translations,
)

# studies: under /studies/
studies_urls = [
    path("", studies.study_list, name="study-list"),
    path("<int:pk>/items/", studies.item_list, name="item-list"),
    path("new", studies.study_new, name="study-new"),
    path("markdown-preview", studies.markdown_preview, name="markdown-preview"),
    path("<int:pk>/settings", studies.study_settings, name="study-settings"),
    path("<int:pk>/status", studies.study_status, name="study-status"),
    path("<int:pk>/delete", studies.study_remove, name="study-delete"),
    path("<int:pk>/pools", studies.pool_list, name="pool-list"),
    path("<int:pk>/pools/new", studies.pool_add, name="pool-add"),
    path("<int:pk>/pools/new-several", studies.pool_add_several, name="pool-add-several"),
    path("<int:pk>/pools/<int:pool_pk>/edit", studies.pool_edit, name="pool-edit"),
    path("<int:pk>/pools/<int:pool_pk>/panel", panels.pool_panel, name="pool-panel"),
    path("<int:pk>/pools/<int:pool_pk>/panel/secret", panels.pool_panel_secret, name="pool-panel-secret"),
    path("<int:pk>/pools/<int:pool_pk>/panel/links", panels.pool_panel_links, name="pool-panel-links"),
    path("<int:pk>/items/<int:item_pk>/image", studies.item_image, name="item-image"),
    # The protocol editor; the annotator's form beside it is annotation:protocol-preview (below).
    path("<int:pk>/protocol", protocol.protocol_edit, name="protocol-edit"),
    path("<int:pk>/protocol/check", protocol.protocol_check, name="protocol-check"),
    # The practice test's questions.
    path("<int:pk>/practice", practice.practice_list, name="practice"),
    path("<int:pk>/practice/new", practice.practice_add, name="practice-add"),
    path("<int:pk>/practice/<int:question_pk>/edit", practice.practice_edit, name="practice-edit"),
    path("<int:pk>/practice/<int:question_pk>/delete", practice.practice_delete, name="practice-delete"),
    path("<int:pk>/practice/attempts", practice.practice_attempts, name="practice-attempts"),
    path("<int:pk>/practice/examples", practice.practice_example, name="practice-example"),
    # The researcher's texts in other languages (``studies.translations``).
    path("<int:pk>/translations", translations.translation_list, name="translation-list"),
    path("<int:pk>/translations/<str:language>", translations.translation_edit, name="translation-edit"),
    path("<int:pk>/members", members.member_list, name="members"),
    path("<int:pk>/members/<int:member_pk>/role", members.member_role, name="member-role"),
    path("<int:pk>/members/<int:member_pk>/remove", members.member_remove, name="member-remove"),
    path("<int:pk>/invitations/<int:invitation_pk>/revoke", members.invitation_revoke,
         name="invitation-revoke"),
]

# analysis: under /studies/
analysis_urls = [
    path("<int:pk>/", analysis.study_dashboard, name="study-dashboard"),
    path("<int:pk>/progress/", analysis.study_progress, name="study-progress"),
    path("<int:pk>/pools/<int:pool_pk>/annotators/", annotators.pool_annotators, name="pool-annotators"),
    path("<int:pk>/annotators/<int:annotator_pk>/block", annotators.annotator_block, name="annotator-block"),
    path("<int:pk>/annotators/<int:annotator_pk>/unblock", annotators.annotator_unblock, name="annotator-unblock"),
    path("<int:pk>/annotators/<int:annotator_pk>/exclude", annotators.annotator_exclude, name="annotator-exclude"),
    path("<int:pk>/annotators/<int:annotator_pk>/include", annotators.annotator_include, name="annotator-include"),
    path("<int:pk>/analysis/", analysis.analysis, name="analysis"),
    path("<int:pk>/planner/", planner.planner, name="planner"),
    path("<int:pk>/analysis/<int:run_pk>/status", analysis.analysis_status, name="analysis-status"),
    path("<int:pk>/analysis/<int:run_pk>/result.json", analysis.analysis_result, name="analysis-result"),
    path("<int:pk>/metrics/", analysis.metrics_upload, name="metrics-upload"),
    path("<int:pk>/import/", imports.import_items, name="import-items"),
    path("<int:pk>/import/<int:job_pk>/status", imports.import_status, name="import-status"),
    path("<int:pk>/import/sample.csv", imports.import_sample, name="import-sample"),
]

# exports: under /studies/
exports_urls = [
    path("<int:pk>/exports/", exports.export_start, name="export-start"),
    path("<int:pk>/exports/<int:job_pk>/status", exports.export_status, name="export-status"),
    path("<int:pk>/exports/<int:job_pk>/cancel", exports.export_cancel, name="export-cancel"),
    path("<int:pk>/exports/<int:job_pk>/download", exports.export_download, name="export-download"),
    path("<int:pk>/exports/<int:job_pk>/manifest", exports.export_manifest, name="export-manifest"),
]

# The researcher's half of recruitment: (its webhook is recruitment/urls.py)
prolific_pages = [
    path("settings/", prolific.token_settings, name="token-settings"),
    path("settings/token/", prolific.token_save, name="token-save"),
    path("settings/token/remove/", prolific.token_remove, name="token-remove"),
    path("studies/<int:pk>/", prolific.study_prolific, name="study-prolific"),
    path("studies/<int:pk>/webhooks/", prolific.study_webhooks, name="study-webhooks"),
    path("studies/<int:pk>/policy/", prolific.study_policy, name="study-policy"),
    path("studies/<int:pk>/launch/", prolific.study_launch, name="study-launch"),
    path("studies/<int:pk>/pools/<int:pool_pk>/preview/", prolific.pool_preview, name="pool-preview"),
    path("studies/<int:pk>/countries/", prolific.pool_countries, name="pool-countries"),
    path("studies/<int:pk>/pools/<int:pool_pk>/country/", prolific.pool_country, name="pool-country"),
    path("studies/<int:pk>/review/", payouts.payouts_page, name="review"),
    path("studies/<int:pk>/review/refresh/", payouts.payouts_refresh, name="review-refresh"),
    path("studies/<int:pk>/review/approve/", payouts.payouts_approve, name="review-approve"),
    path("studies/<int:pk>/review/submissions/<int:sub_pk>/reject/", payouts.payouts_reject, name="review-reject"),
    path("studies/<int:pk>/review/submissions/<int:sub_pk>/return/", payouts.payouts_return, name="review-return"),
    path("studies/<int:pk>/review/jobs/<int:job_pk>/", payouts.payouts_job, name="review-job"),
    path("studies/<int:pk>/review/bonuses/", payouts.bonus_new, name="bonus-new"),
    path("studies/<int:pk>/review/bonuses/<int:bonus_pk>/", payouts.bonus_page, name="bonus"),
    path("studies/<int:pk>/review/bonuses/<int:bonus_pk>/<str:step>/", payouts.bonus_send, name="bonus-send"),
    # issue 28, part 2
    path("studies/<int:pk>/messages/", prolific_messages.messages_received, name="messages"),
    path("studies/<int:pk>/messages/send/", prolific_messages.message_send, name="message-send"),
    path("studies/<int:pk>/pools/<int:pool_pk>/test-study/", prolific_trials.trial_study, name="trial-study"),
    path("studies/<int:pk>/<str:verb>/", prolific.study_transition, name="study-transition"),
]
# Rounds (invite back, groups, block list): before prolific_pages, whose studies/<pk>/<verb>/ would take them.
rounds_pages = [
    path("studies/<int:pk>/invite-back/", rounds.invite_back, name="rounds-invite-back"),
    path("groups/", rounds.groups, name="rounds-groups"),
    path("groups/<int:group_pk>/sync/", rounds.group_sync, name="rounds-group-sync"),
    path("blocked/", rounds.blocked, name="rounds-blocked"),
    path("blocked/remove/", rounds.unblock, name="rounds-unblock"),
]
recruitment_urls = [
    path("prolific/", include(rounds_pages)),
    path("prolific/", include(prolific_pages)),
    # Removing a pool reaches its Prolific study and every app's rows; its address is the pool's.
    path("studies/<int:pk>/pools/<int:pool_pk>/remove", pool_removal.pool_remove, name="pool-remove"),
]

# A pool's annotator path walked as a preview, step by step (under its pool's preview/ address).
path_preview_steps = [
    path("", path_preview.start, name="path-preview"),
    path("consent/", path_preview.consent, name="path-preview-consent"),
    path("eligibility/", path_preview.eligibility, name="path-preview-eligibility"),
    path("instructions/", path_preview.instructions, name="path-preview-instructions"),
    path("practice/", path_preview.mock, name="path-preview-mock"),
    path("items/", path_preview.items, name="path-preview-items"),
    path("items/<int:position>/", path_preview.item_submit, name="path-preview-item-submit"),
    path("items/<int:position>/draft", path_preview.item_draft, name="path-preview-item-draft"),
    path("items/<int:position>/upload", path_preview.item_upload, name="path-preview-item-upload"),
    path("end/", path_preview.end, name="path-preview-end"),
]

# The researcher's half of annotation: (the annotator's pages and the checker's are annotation/urls.py)
annotation_urls = [
    # A preset's annotator form for a sample item, for the researcher's New study page.
    path("studies/presets/<slug:name>/preview", preset_preview.preset_preview, name="preset-preview"),
    # A pool's whole annotator path, walked by any member of the study: nothing is stored.
    path("studies/<int:pk>/pools/<int:pool_pk>/preview/", include(path_preview_steps)),
    # The protocol editor's annotator form (studies:protocol-edit loads it by htmx).
    path("studies/<int:pk>/protocol/preview", protocol_preview.protocol_preview, name="protocol-preview"),
    path("studies/<int:pk>/items/<int:item_pk>/", study_items.study_item, name="study-item"),
    path("studies/<int:pk>/items/<int:item_pk>/attention", check_items.item_attention, name="item-attention"),
    path("studies/<int:pk>/items/<int:item_pk>/gold", check_items.item_gold, name="item-gold"),
    path("studies/<int:pk>/items/<int:item_pk>/ordinary", check_items.item_ordinary, name="item-ordinary"),
    # A study that feeds another (annotation.seeding): answer items made, kept prompts downloaded.
    path("studies/<int:pk>/seed/", seeding.seed, name="seed"),
    path("studies/<int:pk>/seed/answer-items", seeding.seed_answer_items, name="seed-answer-items"),
    path("studies/<int:pk>/seed/kept-prompts.csv", seeding.seed_kept_prompts, name="seed-kept-prompts"),
    # A study's members page (studies:members) invites here: a checker is an annotation row.
    path("studies/<int:pk>/members/invite", invitations.member_invite, name="member-invite"),
    path("studies/<int:pk>/checkers/<int:checker_pk>/remove", invitations.checker_remove, name="checker-remove"),
    path("invitations/<str:token>/", invitations.invitation, name="invitation"),
]
