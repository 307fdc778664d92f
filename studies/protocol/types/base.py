"""What every field type answers: the base class of the registry, and the cell helpers its
export methods share.

A field type owns everything that depends on its type: how it is checked in a spec, read from a
form and parsed; what it needs of an item; its required message; its value domain and answer
token for agreement; how an answer compares with a gold one; its review-form value; how a legacy
CSV cell is read; its export columns, cells, typed values and Arrow types (pyarrow imported only
when an export asks); and its text on the review page. Code outside this package asks the type
(``f.kind.export_cells(f, value)``) instead of testing ``f.type``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..item import CandidateRef, ItemContext, Token, UploadRef
from ..safetext import text_problem
from ..values import Choice, value_token
from ..words import gettext, gettext_noop

if TYPE_CHECKING:
    from ..spec import Field

ANSWER_REQUIRED = gettext_noop("This question needs an answer.")


# --- cells ------------------------------------------------------------------------------------


def json_cell(value: Any) -> str:
    """A value as compact JSON, non-ASCII kept."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def cell_text(value: Any) -> str:
    """One value as one CSV cell: empty for None, JSON for a list or an object, else its form token."""
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json_cell(value)
    return value_token(value)


def value_arrow_type(values: Sequence[Any]) -> Any:
    """The Arrow type of a column holding any of ``values`` (a field's choice values): a boolean,
    a whole number, a number, else a text. pyarrow is imported here, when an export asks, not
    when the engine loads."""
    import pyarrow as pa

    if values and all(isinstance(v, bool) for v in values):
        return pa.bool_()
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return pa.int64()
    if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return pa.float64()
    return pa.string()


def typed_value(value: Any, arrow_type: Any) -> Any:
    """``value`` as a cell of a column of ``arrow_type`` (from ``value_arrow_type``): a whole number
    stays one, an int in a float column becomes a float, anything else in a text column its token."""
    import pyarrow as pa

    if value is None:
        return None
    if pa.types.is_string(arrow_type):
        return value if isinstance(value, str) else cell_text(value)
    if pa.types.is_floating(arrow_type) and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def mappings(value: Any) -> list[Mapping]:
    """The objects of a list answer (anything else in it, or a value that is no list: none)."""
    if not isinstance(value, list):
        return []
    # a dict (what JSON gives) is checked by its type, before the slower abstract check
    return [v for v in value if type(v) is dict or isinstance(v, Mapping)]


def choice_label(f: Field, value: Any) -> str:
    """The label of the choice ``value`` is, else the value itself."""
    choice = f.choice_for(value_token(value))
    return choice.label if choice else str(value)


def _a(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


# --- the review page --------------------------------------------------------------------------


@dataclass(frozen=True)
class ShownAnswer:
    """An answer as the review page shows it: a text, links (title, URL), and the token of an
    uploaded image to show (the page makes its URL)."""

    text: str = ""
    links: tuple[tuple[str, str], ...] = ()
    upload: Any = ""


# --- the base class ---------------------------------------------------------------------------


class FieldType:
    """One field type; ``FIELD_TYPES`` holds one instance of each, by ``name``.

    The defaults describe a field whose answer is one value (a choice's value or a text): one
    export column named by the key, no item part needed, no fixed domain.
    """

    name = ""  # its ``type`` in a spec, and its form template ``annotation/fields/_<name>.html``
    levels: tuple[str, ...] = ()  # the levels of measurement it may carry
    needs_choices = False
    container = False  # it holds sub-fields asked once per document: [{"document": id, sub key: answer}, …]
    categorical = False  # its answer is one of its named choices (what a Yes/No vote or a points mapping reads)
    numeric = False  # its answer is a number on a scale (what a human score is)
    multiple = False  # its answer is a set of its choices (ticked, not chosen)
    free_text = False  # its answer is a text the annotator wrote
    importable = False  # a long-format CSV of annotations made elsewhere can carry it in one cell
    required_text = ANSWER_REQUIRED  # what a required field left blank is told
    agreement_note = ""  # what agreement compares when it is not the whole answer
    script = ""  # the static script the item page loads for it ("" for none)
    # the item page's keys it answers to, as its list of shortcuts names them: "numbers" (1–9 choose
    # an option), "words" (Space marks a word), "boxes" (drawn by keys), "typing" (keys are text)
    shortcuts: frozenset[str] = frozenset()
    draws_boxes = False  # its answer is boxes drawn on an image, in pixels ({x, y, w, h}, …): what COCO ships
    supplies_image = False  # its answer is an image the annotator supplied (``supplied_image``): shipped by hf
    # the settings of a spec only some types take that this one takes (a pairwise field's "tie"): the
    # spec refuses them on any other type (``spec._OWN``)
    own_settings: frozenset[str] = frozenset()
    # its export is the default: one column under its key, the stored value as its typed cell and
    # that value's text as its CSV cell (the export reads such a field column by column, without
    # calling its methods); a type that overrides any export method sets it False
    plain_export = True
    # its answers compare the item's images: "pairs", "best_worst" or "rankings", the design
    # ``stats.comparisons`` fits (``comparison`` gives the row it reads); "" for any other type
    compares = ""
    # a checker re-labels its answer on the review form, which asks a field as one group of its
    # ``options``; a type whose answer does not fit it (a comparison of images) is judged with the
    # annotation as a whole instead, and left out of the reviewed fields
    relabelled = True

    # --- the spec and the form ---------------------------------------------------------------

    def spec_errors(self, f: Field, earlier: Sequence[Field]) -> list[str]:
        return []

    def item_parts(self, f: Field) -> frozenset[str]:
        """What of the item the field needs, and shows with its own question: among "image",
        "candidates", "documents", "uploads" and "images" (a comparison's several images)."""
        return frozenset()

    def markup_is_fixed(self, f: Field) -> bool:
        """Is the field's blank form markup the same for every item of its protocol (so that a
        page may render it once and reuse it)? Not when it shows something of the item."""
        return not self.item_parts(f) and not self.container

    def page_data(self, f: Field) -> dict[str, str]:
        """The settings the field's script reads on the page, by ``data-*`` attribute name (without
        "data-"), as texts: none by default."""
        return {}

    def raw_from(self, data: Mapping[str, Sequence[Any]], name: str) -> list[Any]:
        """The non-blank raw values posted for the field named ``name``."""
        return [str(v) for v in data.get(name, []) if str(v).strip() != ""]

    def form_names(self, name: str) -> tuple[str, ...]:
        """The form names the field named ``name`` posts under (what a draft may hold of it)."""
        return (name,)

    def parse(self, f: Field, raw: list[Any], ctx: ItemContext, answers: Mapping[str, Any]) -> Any:
        """The clean value, or ValueError with the message for the annotator."""
        raise NotImplementedError

    def min_image_size(self, f: Field) -> tuple[int, int] | None:
        """The smallest image (width, height) in pixels the field accepts as an upload; None for a
        field that takes no upload."""
        return None

    def required_message(self, f: Field) -> str:
        """What the annotator is told when the field is required and left blank."""
        return f.required_message or gettext(self.required_text)

    def tokens(self, f: Field, ctx: ItemContext) -> list[Token]:
        """The words the page offers to select (none but for a highlight field)."""
        return []

    def options(self, f: Field, candidates: Sequence[CandidateRef]) -> tuple[Choice, ...]:
        """What a form offers to choose among: the field's choices."""
        return f.choices

    # --- comparing answers -------------------------------------------------------------------

    def domain(self, f: Field) -> tuple[Choice, ...] | None:
        """The fixed values of the field in the order agreement reads them; None when its
        values are whatever distinct answers come (each one a nominal value)."""
        return None

    def answer_token(self, f: Field, value: Any) -> str:
        """A given (non-empty) answer as one token: a set of choices as their tokens joined by "|"
        in the order of ``f``'s choices, any other object as its JSON, a value as its form token."""
        if isinstance(value, list):
            order = {c.token: i for i, c in enumerate(f.choices)}
            return "|".join(sorted((value_token(v) for v in value), key=lambda t: (order.get(t, len(order)), t)))
        if isinstance(value, Mapping):
            return json.dumps(value, sort_keys=True)
        return value_token(value)

    # --- gold labels ---------------------------------------------------------------------------

    def gold_votes(self, f: Field, value: Any) -> dict[str, str]:
        """The nominal votes one answer casts, by part of the field: by default one vote, the
        answer's token, for the whole field (part ""); none for a missing answer."""
        return {} if value is None or value == [] else {"": self.answer_token(f, value)}

    def gold_categorical(self, f: Field) -> bool:
        """Are the field's answers categories (its ``gold_votes``) that a competence model
        (Dawid–Skene) fits a label and each annotator's competence over? Nominal answers always;
        ordinal ones when the type has a fixed domain (a scale's points, an ordinal choice's
        options, read as categories in its order); interval and ratio numbers never."""
        return f.level == "nominal" or (f.level == "ordinal" and bool(self.domain(f)))

    def gold_number(self, f: Field, value: Any) -> float | None:
        """An answer as a number to take a median or a mean of: by default its 1-based position in
        the field's domain (an ordinal choice's rank); None when missing or outside the domain."""
        if value is None:
            return None
        token = self.answer_token(f, value)
        domain = self.domain(f) or ()
        return next((float(i) for i, c in enumerate(domain, start=1) if c.token == token), None)

    # --- gold answers (``..gold``) ------------------------------------------------------------

    def gold_problem(self, f: Field) -> str | None:
        """Why the field cannot have a gold answer (no answer is known in advance), or None."""
        return None

    def gold_tolerance_problem(self, f: Field, tolerance: Any) -> str | None:
        """Why ``tolerance`` does not fit the field's gold comparison, or None. By default the
        answers are compared exactly and no tolerance is taken."""
        return f"{_a(self.name)} field is compared exactly: it takes no gold tolerance"

    def gold_matches(self, f: Field, given: Any, expected: Any, tolerance: Any) -> bool:
        """Does a given answer match the gold one (both given; ``tolerance`` None for the default,
        else one ``gold_tolerance_problem`` accepts)? By default their answer tokens are equal."""
        return self.answer_token(f, given) == self.answer_token(f, expected)

    def form_values(self, f: Field, value: Any) -> list[str]:
        """A stored answer as the form posts it (what pre-sets a review form to it)."""
        if isinstance(value, list):
            return [value_token(v) for v in value]
        return [] if value is None else [value_token(value)]

    def supplied_image(self, f: Field, value: Any) -> UploadRef | None:
        """The image an answer supplies (an upload: its sha256, size and the file name given), or
        None; only a type with ``supplies_image`` has one."""
        return None

    # --- answers made elsewhere --------------------------------------------------------------

    def import_value(self, f: Field, cell: str, ctx: ItemContext) -> Any:
        """The clean value of one cell of a long-format CSV (as the form would post it), or
        ValueError with the reason."""
        if not self.importable:
            raise ValueError(f"{self.name} fields cannot be carried in one cell")
        problem = text_problem(cell)
        if problem:
            raise ValueError(problem)
        return self.parse(f, [cell.strip()], ctx, {})

    # --- the export --------------------------------------------------------------------------

    def export_columns(self, f: Field) -> list[str]:
        """The CSV columns of the field: by default its key."""
        return [f.key]

    def export_cells(self, f: Field, value: Any) -> dict[str, str]:
        """The cells of one answer, by column name; no answer gives no cell (an empty one).
        By default the value, a list's values joined by "|"."""
        if value is None:
            return {}
        if isinstance(value, list):
            return {f.key: "|".join(cell_text(v) for v in value)}
        return {f.key: cell_text(value)}

    def export_values(self, f: Field, value: Any) -> dict[str, Any]:
        """The typed cells of one answer for JSONL and Parquet, by the columns of ``export_columns``:
        numbers stay numbers, lists stay lists (of the types of ``export_arrow``); no answer gives
        no cell (a null). By default the value as stored, under its key (``plain_export``)."""
        if value is None:
            return {}
        return {f.key: value}

    def export_arrow(self, f: Field) -> dict[str, Any]:
        """The Arrow type of each export column (``pyarrow.DataType``, in ``export_columns`` order):
        by default the type of its choices' values, else a text."""
        return {f.key: self._value_type(f)}

    def _value_type(self, f: Field) -> Any:
        return value_arrow_type([c.value for c in f.choices])

    # --- the review page ---------------------------------------------------------------------

    def comparison(self, f: Field, value: Any, models: Mapping[str, str]) -> tuple | None:
        """The answer as ``stats.comparisons`` reads it, each image named by ``models`` (image id →
        the model that made it): (left, right, winner) for pairs, (shown, best, worst) for
        best–worst, (shown, ranking) for rankings; None when it cannot be read so."""
        return None

    def show_answer(self, f: Field, value: Any, *, candidates: Sequence[CandidateRef] = ()) -> ShownAnswer:
        """A given answer as the review page shows it read-only (``candidates``: the item's, for
        naming the one chosen)."""
        return ShownAnswer(text=str(value))
