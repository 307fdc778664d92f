"""``pairwise``, ``best_worst``, ``rank``: comparisons among an item's several images.

An item carries 2–8 images (``ItemContext.images``), each named by its id (its position in the
item, "1"…"8") and shown to each annotator in an order of their own; the answer stores the ids, never
"left" or "right", and the order shown. The page never names the model that made an image.

Each field posts under several form names (``form_names``); ``raw_from`` reads them into
``"<part>=<value>"`` texts (``"choice=2"``, ``"strength=3"``; ``"best=3"``, ``"worst=1"``; a rank's
``"<image id>=<rank>"``), what ``parse`` reads, what the form template finds its posted values in
(the ``posted`` filter of ``item_form``) and what ``form_values`` gives back for a stored answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..item import ItemContext
from ..values import value_token
from ..words import gettext, gettext_noop, ngettext
from .base import FieldType, ShownAnswer, cell_text

MAX_IMAGES = 8  # an item's images are "1"…"8"
TIE, BOTH_FAIL = "tie", "both_fail"
# a pairwise answer's strength, as the review page says it
STRENGTHS = {1: "slightly better", 2: "clearly better", 3: "much better"}


def parts(raw: Sequence[Any]) -> dict[str, str]:
    """The ``"<part>=<value>"`` texts of a comparison's raw values, by part (the first of each)."""
    out: dict[str, str] = {}
    for text in raw:
        part, _, value = str(text).partition("=")
        out.setdefault(part, value.strip())
    return out


def _first(data: Mapping[str, Sequence[Any]], name: str) -> str:
    """The first non-blank value posted under ``name``, or ""."""
    return next((str(v).strip() for v in data.get(name, []) if str(v).strip()), "")


def _images(ctx: ItemContext, least: int, most: int) -> list[str]:
    """The ids of the item's images in the order shown, or ValueError when there are not
    ``least`` to ``most`` of them."""
    ids = [image.id for image in ctx.images]
    if not least <= len(ids) <= most:
        raise ValueError(gettext("This comparison needs {least} to {most} images; the item has {n}.").format(
            least=least, most=most, n=len(ids)))
    return ids


def _answer(value: Any, main: str) -> Mapping[str, Any]:
    """A stored answer as an object; anything else read as its main part (as pick_one reads a bare id)."""
    return value if isinstance(value, Mapping) else {main: value}


def _texts(value: Any) -> list[str]:
    """A stored list of ids as texts (anything that is no list: none)."""
    return [cell_text(v) for v in value] if isinstance(value, list) else []


def _by_id(image_id: str) -> tuple[int, str]:
    return (int(image_id), "") if image_id.isdecimal() else (MAX_IMAGES + 1, image_id)


def _models_of(ids: Any, models: Mapping[str, str]) -> list[str] | None:
    """The models of the images ``ids`` names, in that order; None when one is unknown or one model
    comes twice (the comparison says nothing of models then)."""
    if not isinstance(ids, list) or not ids:
        return None
    named = [models.get(str(i)) for i in ids]
    if any(not m for m in named) or len(set(named)) != len(named):
        return None
    return [m for m in named if m]


class _Comparison(FieldType):
    """What the three comparisons share: the item's images shown with the question, a nominal
    answer, no import from a CSV cell, no gold answer (not yet), no re-labelling by a checker, their
    own export columns."""

    levels = ("nominal",)
    plain_export = False
    relabelled = False  # the review form's one group of options has no room for the images
    script = "annotation/compare.js"

    def item_parts(self, f):
        return frozenset({"images"})

    def gold_problem(self, f):
        return f"a {self.name} field cannot have a gold answer (not yet)"

    def gold_categorical(self, f):
        return False


class PairwiseType(_Comparison):
    """Two images, shown left and right: the better one, or (when the spec allows) a tie or both
    failing. ``{"choice": image id | "tie" | "both_fail", "order": [left id, right id]}``, with
    ``"strength"`` 1–3 (slightly, clearly, much better) when the spec asks for it and an image was
    chosen. Posted as ``<name>`` (the id, "tie" or "both_fail") and ``<name>.strength``. Exported as
    ``<key>`` the choice, ``<key>_left`` and ``<key>_right`` the ids shown there, ``<key>_strength``."""

    name = "pairwise"
    compares = "pairs"
    shortcuts = frozenset({"numbers"})  # 1 left, 2 right, 3 tie (or both fail), 4 both fail: the page's own keys
    own_settings = frozenset({"tie", "both_fail", "strength"})
    required_text = gettext_noop("Choose the better image.")
    agreement_note = "the image chosen (or a tie, or both failing)"

    def spec_errors(self, f, earlier):
        return [f"'{setting}' must be true or false" for setting in ("tie", "both_fail", "strength")
                if getattr(f, setting) is not None and not isinstance(getattr(f, setting), bool)]

    def allows(self, f, choice: str) -> bool:
        """May the annotator answer "tie" or "both_fail" (a tie unless the spec says no; both
        failing only when it says yes)?"""
        return f.tie is not False if choice == TIE else f.both_fail is True

    def form_names(self, name):
        return (name, f"{name}.strength")

    def comparison(self, f, value, models):
        """(left model, right model, winner): a tie and both failing are each a tie."""
        if not isinstance(value, Mapping):
            return None
        shown = _models_of(value.get("order"), models)
        if shown is None or len(shown) != 2:
            return None
        choice, order = value.get("choice"), [str(i) for i in value["order"]]
        winner = {order[0]: "left", order[1]: "right", TIE: "tie", BOTH_FAIL: "tie"}.get(str(choice))
        return None if winner is None else (shown[0], shown[1], winner)

    def raw_from(self, data, name):
        posted = {"choice": _first(data, name), "strength": _first(data, f"{name}.strength")}
        return [f"{part}={value}" for part, value in posted.items() if value]

    def parse(self, f, raw, ctx, answers):
        ids = [image.id for image in ctx.images]
        if len(ids) != 2:
            raise ValueError(gettext("This comparison needs two images; the item has {n}.").format(n=len(ids)))
        posted = parts(raw)
        choice = posted.get("choice", "")
        if choice in (TIE, BOTH_FAIL):
            if not self.allows(f, choice):
                raise ValueError(gettext("This question has no tie: choose one of the images.") if choice == TIE
                                 else gettext("This question has no “both fail”: choose one of the images."))
            return {"choice": choice, "order": ids}
        if choice not in ids:
            raise ValueError(gettext("Choose one of the images shown."))
        value: dict[str, Any] = {"choice": choice, "order": ids}
        if f.strength:  # not asked of a tie or of both failing
            strength = posted.get("strength", "")
            if not strength:
                raise ValueError(gettext("Say how much better the image you chose is."))
            if strength not in {str(s) for s in STRENGTHS}:
                raise ValueError(gettext("Say how much better: 1 (slightly), 2 (clearly) or 3 (much)."))
            value["strength"] = int(strength)
        return value

    def answer_token(self, f, value):
        if isinstance(value, Mapping):
            return value_token(value.get("choice"))
        return super().answer_token(f, value)

    def form_values(self, f, value):
        if not isinstance(value, Mapping) or value.get("choice") is None:
            return []
        strength = value.get("strength")
        return [f"choice={value_token(value['choice'])}", *([f"strength={strength}"] if strength is not None else [])]

    def export_columns(self, f):
        return [f.key, f"{f.key}_left", f"{f.key}_right", f"{f.key}_strength"]

    def _cells(self, value) -> tuple[Any, str | None, str | None, int | None]:
        answer = _answer(value, "choice")
        order = _texts(answer.get("order"))
        strength = answer.get("strength")
        return (answer.get("choice"), order[0] if order else None, order[1] if len(order) > 1 else None,
                strength if isinstance(strength, int) and not isinstance(strength, bool) else None)

    def export_cells(self, f, value):
        if value is None:
            return {}
        choice, left, right, strength = self._cells(value)
        return {f.key: cell_text(choice), f"{f.key}_left": left or "", f"{f.key}_right": right or "",
                f"{f.key}_strength": "" if strength is None else str(strength)}

    def export_values(self, f, value):
        if value is None:
            return {}
        choice, left, right, strength = self._cells(value)
        return {f.key: None if choice is None else cell_text(choice), f"{f.key}_left": left,
                f"{f.key}_right": right, f"{f.key}_strength": strength}

    def export_arrow(self, f):
        import pyarrow as pa

        return {f.key: pa.string(), f"{f.key}_left": pa.string(), f"{f.key}_right": pa.string(),
                f"{f.key}_strength": pa.int64()}

    def show_answer(self, f, value, *, candidates=()):
        if not isinstance(value, Mapping):
            return super().show_answer(f, value)
        choice, left, right, strength = self._cells(value)
        shown = [i for i in (left, right) if i is not None]
        if choice in (TIE, BOTH_FAIL):
            what = "Tie" if choice == TIE else "Both fail"
            return ShownAnswer(text=f"{what} (images {' and '.join(shown)})" if shown else what)
        other = next((i for i in shown if i != str(choice)), None)
        text = f"Image {choice} over image {other}" if other else f"Image {choice}"
        return ShownAnswer(text=f"{text} ({STRENGTHS[strength]})" if strength in STRENGTHS else text)


class BestWorstType(_Comparison):
    """3–8 images: the best and the worst. ``{"best": id, "worst": id, "order": [ids as shown]}``.
    Posted as ``<name>`` (the best) and ``<name>.worst``. Exported as ``<key>_best``,
    ``<key>_worst`` and ``<key>_order`` (joined by "|" in a CSV)."""

    name = "best_worst"
    compares = "best_worst"
    required_text = gettext_noop("Choose the best and the worst image.")
    agreement_note = "the image chosen as best"

    def form_names(self, name):
        return (name, f"{name}.worst")

    def comparison(self, f, value, models):
        """(models shown, best model, worst model)."""
        if not isinstance(value, Mapping):
            return None
        shown = _models_of(value.get("order"), models)
        best, worst = models.get(str(value.get("best"))), models.get(str(value.get("worst")))
        if shown is None or not best or not worst or best == worst:
            return None
        return (shown, best, worst)

    def raw_from(self, data, name):
        posted = {"best": _first(data, name), "worst": _first(data, f"{name}.worst")}
        return [f"{part}={value}" for part, value in posted.items() if value]

    def parse(self, f, raw, ctx, answers):
        ids = _images(ctx, 3, MAX_IMAGES)
        posted = parts(raw)
        best, worst = posted.get("best", ""), posted.get("worst", "")
        if not best:
            raise ValueError(gettext("Choose the best image."))
        if not worst:
            raise ValueError(gettext("Choose the worst image."))
        if best not in ids or worst not in ids:
            raise ValueError(gettext("Choose among the images shown."))
        if best == worst:
            raise ValueError(gettext("The best and the worst image must be two different images."))
        return {"best": best, "worst": worst, "order": ids}

    def answer_token(self, f, value):
        if isinstance(value, Mapping):
            return value_token(value.get("best"))
        return super().answer_token(f, value)

    def form_values(self, f, value):
        if not isinstance(value, Mapping):
            return []
        return [f"{part}={value_token(value[part])}" for part in ("best", "worst") if value.get(part) is not None]

    def export_columns(self, f):
        return [f"{f.key}_best", f"{f.key}_worst", f"{f.key}_order"]

    def export_cells(self, f, value):
        if value is None:
            return {}
        answer = _answer(value, "best")
        return {f"{f.key}_best": cell_text(answer.get("best")), f"{f.key}_worst": cell_text(answer.get("worst")),
                f"{f.key}_order": "|".join(_texts(answer.get("order")))}

    def export_values(self, f, value):
        if value is None:
            return {}
        answer = _answer(value, "best")
        best, worst = answer.get("best"), answer.get("worst")
        return {f"{f.key}_best": None if best is None else cell_text(best),
                f"{f.key}_worst": None if worst is None else cell_text(worst),
                f"{f.key}_order": _texts(answer.get("order"))}

    def export_arrow(self, f):
        import pyarrow as pa

        return {f"{f.key}_best": pa.string(), f"{f.key}_worst": pa.string(), f"{f.key}_order": pa.list_(pa.string())}

    def show_answer(self, f, value, *, candidates=()):
        if not isinstance(value, Mapping):
            return super().show_answer(f, value)
        return ShownAnswer(text=f"Best: image {value.get('best')}; worst: image {value.get('worst')}")


class RankType(_Comparison):
    """2–8 images, all of them in order. ``{"ranking": [ids best → worst], "order": [ids as
    shown]}``. Posted as one rank (1 best … K worst) per image, ``<name>.<image id>``. Exported as
    ``<key>`` the ranking and ``<key>_order`` (each joined by "|" in a CSV)."""

    name = "rank"
    compares = "rankings"
    required_text = gettext_noop("Give each image a rank.")
    agreement_note = "the whole ranking"

    def form_names(self, name):
        return tuple(f"{name}.{i}" for i in range(1, MAX_IMAGES + 1))

    def comparison(self, f, value, models):
        """(models shown, models from best to worst)."""
        if not isinstance(value, Mapping):
            return None
        shown, ranking = _models_of(value.get("order"), models), _models_of(value.get("ranking"), models)
        if shown is None or ranking is None or sorted(shown) != sorted(ranking):
            return None
        return (shown, ranking)

    def raw_from(self, data, name):
        posted = {str(i): _first(data, f"{name}.{i}") for i in range(1, MAX_IMAGES + 1)}
        return [f"{image_id}={rank}" for image_id, rank in posted.items() if rank]

    def parse(self, f, raw, ctx, answers):
        ids = _images(ctx, 2, MAX_IMAGES)
        ranks = parts(raw)
        if any(image_id not in ids for image_id in ranks):
            raise ValueError(gettext("Rank only the images shown."))
        places = {str(n) for n in range(1, len(ids) + 1)}
        if any(rank not in places for rank in ranks.values()):
            raise ValueError(gettext("A rank is a whole number from 1 to {k}.").format(k=len(ids)))
        unranked = len(ids) - len(ranks)
        if unranked:
            raise ValueError(ngettext(
                "{n} image has no rank yet: give each image a rank.",
                "{n} images have no rank yet: give each image a rank.", unranked,
            ).format(n=unranked))
        given = list(ranks.values())
        twice = next((rank for rank in given if given.count(rank) > 1), None)
        if twice is not None:
            raise ValueError(gettext("Rank {rank} is given twice: give each image its own rank.").format(rank=twice))
        return {"ranking": sorted(ids, key=lambda image_id: int(ranks[image_id])), "order": ids}

    def answer_token(self, f, value):
        if isinstance(value, Mapping):
            return ">".join(_texts(value.get("ranking")))
        return super().answer_token(f, value)

    def form_values(self, f, value):
        ranking = _texts(value.get("ranking")) if isinstance(value, Mapping) else []
        places = {image_id: n for n, image_id in enumerate(ranking, start=1)}
        return [f"{image_id}={places[image_id]}" for image_id in sorted(places, key=_by_id)]

    def _lists(self, value) -> tuple[list[str], list[str]]:
        answer = _answer(value, "ranking")
        return _texts(answer.get("ranking")), _texts(answer.get("order"))

    def export_columns(self, f):
        return [f.key, f"{f.key}_order"]

    def export_cells(self, f, value):
        if value is None:
            return {}
        ranking, order = self._lists(value)
        return {f.key: "|".join(ranking), f"{f.key}_order": "|".join(order)}

    def export_values(self, f, value):
        if value is None:
            return {}
        ranking, order = self._lists(value)
        return {f.key: ranking, f"{f.key}_order": order}

    def export_arrow(self, f):
        import pyarrow as pa

        return {f.key: pa.list_(pa.string()), f"{f.key}_order": pa.list_(pa.string())}

    def show_answer(self, f, value, *, candidates=()):
        if not isinstance(value, Mapping):
            return super().show_answer(f, value)
        return ShownAnswer(text=" > ".join(self._lists(value)[0]) or "no ranking")
