"""The registry of field types: one class per module, one line each here.

A new field type is a ``FieldType`` subclass in its own module (or beside its kin: the three
comparisons share ``compare``), listed below, plus its form template
``templates/annotation/fields/_<name>.html`` (and its script, when it has one).
"""

from __future__ import annotations

from .base import FieldType, ShownAnswer, cell_text
from .bbox import BboxType
from .choice import ChoiceType
from .compare import BestWorstType, PairwiseType, RankType
from .highlight import HighlightType
from .multi import MultiType
from .per_document import PerDocumentType
from .pick_one import PickOneType
from .scale import ScaleType
from .text import TextType
from .upload import UploadType
from .url_list import UrlListType

FIELD_TYPES: dict[str, FieldType] = {
    t.name: t
    for t in (
        ScaleType(),
        ChoiceType(),
        MultiType(),
        HighlightType(),
        TextType(),
        UrlListType(),
        UploadType(),
        BboxType(),
        PickOneType(),
        PerDocumentType(),
        PairwiseType(),
        BestWorstType(),
        RankType(),
    )
}

# Every type's script, once each (the comparisons share one); a page loads only its protocol's (``Protocol.scripts``).
FIELD_SCRIPTS: tuple[str, ...] = tuple(dict.fromkeys(t.script for t in FIELD_TYPES.values() if t.script))

__all__ = [
    "FIELD_SCRIPTS", "FIELD_TYPES", "BboxType", "BestWorstType", "ChoiceType", "FieldType", "HighlightType",
    "MultiType", "PairwiseType", "PerDocumentType", "PickOneType", "RankType", "ScaleType", "ShownAnswer", "TextType",
    "UploadType", "UrlListType", "cell_text",
]
