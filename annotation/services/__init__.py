"""State changes of the annotator's way through a study. Views, commands and tasks call these.

One module per job: ``entry`` (the entry link), ``binding`` (a session bound to its browser, the
resume code), ``onboarding`` (consent, screening, instructions, practice test), ``blocking`` (a
researcher stopping an annotator), ``exclusion`` (a researcher leaving an annotator's answers out),
``withdrawal`` (annotations kept but not counted), ``leases`` (which item an annotator is on, and the session's
progress), ``submit`` (storing an annotation) and ``uploads`` (an annotator's image). Callers import from here.
"""

from .binding import RESUME_LOCK, RESUME_TRIES, Admission, ResumeRefused, session_admit, session_resume
from .blocking import annotator_block, annotator_unblock
from .entry import EntryIsTrial, EntryRefused, annotator_arrive, annotator_enter, entry_params, pool_has_room
from .exclusion import ExclusionRefused, annotator_exclude, annotator_include
from .leases import (
    DraftRefused,
    assignment_next,
    assignment_save_draft,
    assignments_expire,
    draft_check,
    lease_release,
    session_complete,
    session_release,
    session_submitted_count,
)
from .onboarding import annotator_consent, annotator_read_instructions, annotator_screen, mock_submit
from .submit import (
    SubmitResult,
    annotation_submit,
    quota_count_late,
    session_skips_left,
)
from .uploads import UploadRefused, upload_receive
from .withdrawal import session_annotations_withdraw

__all__ = [
    "RESUME_LOCK", "RESUME_TRIES",
    "Admission", "DraftRefused", "EntryIsTrial", "EntryRefused", "ResumeRefused", "annotator_arrive", "session_admit",
    "session_resume",
    "ExclusionRefused", "SubmitResult", "UploadRefused", "annotator_exclude", "annotator_include",
    "annotation_submit", "annotator_block", "annotator_consent", "annotator_enter", "annotator_read_instructions",
    "entry_params",
    "annotator_screen", "annotator_unblock", "assignment_next", "assignment_save_draft", "assignments_expire",
    "draft_check", "lease_release", "mock_submit", "pool_has_room",
    "quota_count_late", "session_annotations_withdraw", "session_complete", "session_skips_left", "session_release",
    "session_submitted_count", "upload_receive",
]
