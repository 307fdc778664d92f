"""A report kind as one object: what it reads of each answer, how it computes its figures, which
fragment shows them and which plot tag that fragment draws. Pure: no Django.

The protocol engine declares each kind (``studies.protocol.reports.REPORT_KINDS``: its title,
its roles, the field types that fill them, its options), which is all a spec's validation needs.
Each paper's module here implements its kinds with ``implement(name, …)``, which takes the
engine's declaration by that name and refuses readers that do not match its roles, and
``catalog.REPORTS`` lists them: the one registry ``analysis.reports`` reads. The analysis
supplies the annotations' columns and, through ``ReportContext``, what only the database knows
(item quotas and candidates, read when a kind asks for them).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from studies.protocol.reports import REPORT_KINDS, ReportKind, ReportSpec

from ..columns import AnnotationColumns, KeyColumn
from ..versions import ProtocolSet
from .common import number

Storage = Literal["number", "interned", "list"]


# --- what a kind keeps of each answer ---------------------------------------------------------


@dataclass(frozen=True)
class Reader:
    """What a report keeps of each answer of a role's field. ``read`` runs once per distinct answer
    (and once for an absent one, given None); ``storage`` says how the values are held: "number"
    in a float array (NaN for None), "interned" for few hashable values, "list" for anything else
    (those two in object arrays)."""

    read: Callable[[Any], Any]
    storage: Storage = "list"

    def column(self, column: KeyColumn) -> np.ndarray:
        return column.numbers(self.read) if self.storage == "number" else column.mapped(self.read)


def hashable(value: Any) -> Any:
    """A vote or a set of ticked choices as a key to group by: a list as a tuple; anything that
    still cannot be a key (an answer of the wrong shape) as its JSON text."""
    if isinstance(value, list):
        value = tuple(value)
    try:
        hash(value)
    except TypeError:
        return json.dumps(value, sort_keys=True, default=str)
    return value


def as_stored(value: Any) -> Any:
    return value


NUMBER = Reader(number, "number")  # a numeric answer as a float
KEY = Reader(hashable, "interned")  # a vote or a set of choices, to group by
AS_STORED = Reader(as_stored, "list")  # the answer as stored, for the pure function to read


# --- what a kind computes from ----------------------------------------------------------------


@dataclass(frozen=True)
class ReportContext:
    """What a report may need beside its annotations: every protocol version, each pool's country,
    and what the database holds, read only when a kind calls for it."""

    protocols: ProtocolSet
    country_of: Mapping[int, Any]  # pool id -> country code
    wanted: Callable[[], Mapping[tuple[Any, Any], int]]  # (item, country) -> votes wanted
    candidates: Callable[[], Mapping[Any, list]]  # item -> its candidates (items named as in the columns)


@dataclass(frozen=True)
class ReportData:
    """One declared report's annotations (answered, of versions that fit it): item, pool, annotator
    and version columns, plus one value column per key its roles name, in the kind's role order."""

    spec: ReportSpec
    annotations: AnnotationColumns
    columns: tuple[tuple[str, np.ndarray], ...]  # (role, values), a role of many keys once per key
    context: ReportContext

    @property
    def items(self) -> np.ndarray:
        return self.annotations.item

    def countries(self) -> np.ndarray:
        return self.annotations.countries(self.context.country_of)

    def column(self, role: str) -> np.ndarray:
        """The values of a role's (first) field (a KeyError for an optional role left out)."""
        found = next((values for name, values in self.columns if name == role), None)
        if found is None:
            raise KeyError(f"the report names no field for role {role!r}")
        return found

    def rows(self) -> Iterator[tuple]:
        """(item id, country, *values), one per annotation read."""
        countries = self.countries().tolist()
        return zip(self.items.tolist(), countries, *(c.tolist() for _, c in self.columns), strict=True)

    def frame(self, names: Sequence[str]) -> pd.DataFrame:
        """The same as a frame: columns item, country, then ``names`` (one per value column)."""
        data = {"item": self.items, "country": self.countries()}
        data.update(zip(names, (c for _, c in self.columns), strict=True))
        return pd.DataFrame(data)


# --- the kind ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportKindImpl:
    """A declared kind with what it reads (a reader per role), how it computes (``compute`` returns
    an object whose ``as_dict()`` is the JSON-safe result), the fragment showing the result
    (``analysis/_report_<kind>.html`` unless named) and the plot tag that fragment draws, if any."""

    kind: ReportKind
    reads: Mapping[str, Reader]
    compute: Callable[[ReportData], Any]
    plot: str | None = None
    template: str = ""

    def __post_init__(self) -> None:
        roles = [r.name for r in self.kind.roles]
        if sorted(self.reads) != sorted(roles):
            raise ValueError(f"report kind {self.name!r} reads {sorted(self.reads)}, but its roles are {roles}")
        if not self.template:
            object.__setattr__(self, "template", f"analysis/_report_{self.name}.html")

    @property
    def name(self) -> str:
        return self.kind.kind

    def readers(self, spec: ReportSpec) -> list[tuple[str, str, Reader]]:
        """(role, answer key, reader) of each key the report names, in the kind's role order."""
        return [(role.name, key, self.reads[role.name]) for role in self.kind.roles for key in spec.keys(role.name)]

    def keys(self, spec: ReportSpec) -> list[str]:
        """The answer keys the report reads."""
        return [key for _, key, _ in self.readers(spec)]

    def read(self, spec: ReportSpec, answered: AnnotationColumns, context: ReportContext) -> ReportData:
        """The report's data: of the ``answered`` annotations (holding at least ``keys(spec)``),
        those whose protocol version has every field the report names with a fitting type."""
        fitting = [v for v in answered.versions() if self.kind.fits(spec, context.protocols.for_version(v).fields)]
        annotations = answered.take(np.isin(answered.version, fitting))
        columns = tuple((role, reader.column(annotations.keys[key])) for role, key, reader in self.readers(spec))
        return ReportData(spec, annotations, columns, context)

    def run(self, spec: ReportSpec, answered: AnnotationColumns, context: ReportContext) -> dict[str, Any]:
        """The report's result, JSON-safe."""
        return self.compute(self.read(spec, answered, context)).as_dict()


def implement(
    name: str,
    *,
    reads: Mapping[str, Reader],
    compute: Callable[[ReportData], Any],
    plot: str | None = None,
    template: str = "",
) -> ReportKindImpl:
    """The implementation of the kind the engine declares as ``name`` (a KeyError if it does not)."""
    try:
        kind = REPORT_KINDS[name]
    except KeyError:
        raise KeyError(f"the protocol engine declares no report kind {name!r} (studies.protocol.reports)") from None
    return ReportKindImpl(kind, reads, compute, plot, template)


__all__ = ["AS_STORED", "KEY", "NUMBER", "Reader", "ReportContext", "ReportData", "ReportKindImpl", "as_stored",
           "hashable", "implement"]
