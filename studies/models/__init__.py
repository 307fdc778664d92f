"""What is asked: studies, their country pools, items and the practice test, members, and a study's
jobs; one module per sub-domain, every name importable from ``studies.models`` as before."""

from .items import (
    MAX_ITEM_IMAGES,
    STUDY_FILE_KINDS,
    CheckKind,
    Document,
    Item,
    ItemImage,
    ItemQuerySet,
    ItemQuota,
    ItemQuotaQuerySet,
    MockQuestion,
    item_image_path,
    item_images_path,
    random_name,
    stored_name,
    study_files_prefix,
)
from .jobs import ImportJob, StudyJob, import_upload_path
from .members import Role, StudyInvitation, StudyMember
from .panels import PoolPanel, panel_label, panel_of
from .study import CountryPool, ProtocolVersion, Study, completion_code, parsed_protocol

__all__ = [
    "MAX_ITEM_IMAGES", "STUDY_FILE_KINDS", "CheckKind", "CountryPool", "Document", "ImportJob", "Item", "ItemImage",
    "ItemQuerySet", "ItemQuota",
    "ItemQuotaQuerySet", "MockQuestion", "PoolPanel", "ProtocolVersion", "Role", "Study", "StudyInvitation", "StudyJob",
    "StudyMember", "completion_code", "import_upload_path", "item_image_path", "item_images_path",
    "panel_label", "panel_of", "parsed_protocol",
    "random_name",
    "stored_name", "study_files_prefix",
]
