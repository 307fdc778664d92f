"""The protocol engine: a study's questions as a declarative JSON spec.

One spec is used three times: to render the form (``bind``), to validate a submission on the
server (``validate``), and to tell the analysis each field's level of measurement
(``Protocol.analysable``). Pure Python, no Django. Conditions are evaluated identically by
``static/annotation/conditions.js``.
"""

from .conditions import COMPARATORS, evaluate
from .drafts import draft_problem
from .gold import GoldCheck, check_passed, gold_answer_problems, gold_check, gold_match
from .item import CandidateRef, DocumentRef, ImageRef, ItemContext, Token, UploadRef, tokenize
from .jsonbounds import JsonRefused, json_bounded
from .quality import Quality
from .safetext import text_problem, value_problem
from .schedule import Schedule, schedule_rng, session_schedule
from .spec import LEVELS, Choice, Display, Field, Protocol, Skip, SpecError, answer_token, parse_spec, value_token
from .submission import SKIP, Bound, Validation, bind, validate, walk
from .text import SpecProblem, SpecText, spec_pretty, spec_read
from .types import FIELD_SCRIPTS, FIELD_TYPES, FieldType, ShownAnswer, cell_text

__all__ = [
    "COMPARATORS", "FIELD_SCRIPTS", "FIELD_TYPES", "LEVELS", "SKIP",
    "Bound", "CandidateRef", "Choice", "Display", "DocumentRef", "Field", "FieldType", "GoldCheck", "ImageRef",
    "ItemContext",
    "Protocol", "Quality", "Schedule", "ShownAnswer", "Skip", "SpecError", "SpecProblem", "SpecText", "Token",
    "UploadRef", "Validation",
    "JsonRefused", "answer_token", "bind", "cell_text", "check_passed", "draft_problem", "evaluate",
    "gold_answer_problems", "gold_check", "gold_match",
    "json_bounded", "parse_spec", "schedule_rng", "session_schedule",
    "spec_pretty", "spec_read", "text_problem", "tokenize", "validate", "value_problem", "value_token", "walk",
]
