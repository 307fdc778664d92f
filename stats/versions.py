"""Every spec a study's answers were given under, read together. Pure: no Django.

An answer is read with the spec of its own protocol version, so a later edit of the spec never
reinterprets old data. Exports and the analysis see the union of the fields of those versions:
the current spec's fields in its order, then fields only older versions had (newest first).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from studies.protocol import Field, Protocol


def merge_fields(field_lists: Iterable[Sequence[Field]]) -> list[list[Field]]:
    """Group the fields of several specs (given newest first) by key, in order of first appearance.

    Each group lists that key's definitions, newest first; its first one is the reference.
    """
    groups: dict[str, list[Field]] = {}
    for fields in field_lists:
        for f in fields:
            variants = groups.setdefault(f.key, [])
            if f not in variants:
                variants.append(f)
    return list(groups.values())


@dataclass(frozen=True)
class ProtocolSet:
    """The current spec, and the spec of every other version that answers were given under."""

    current: Protocol
    current_version: int
    versions: Mapping[int, Protocol] = field(default_factory=dict)
    fallback: frozenset[int] = frozenset()  # versions with no stored spec, read with the current one

    def for_version(self, version: int) -> Protocol:
        if version == self.current_version:
            return self.current
        return self.versions.get(version, self.current)

    def newest_first(self) -> list[Protocol]:
        older = [self.versions[v] for v in sorted(self.versions, reverse=True) if v != self.current_version]
        return [self.current, *older]

    def groups(self) -> list[list[Field]]:
        """Top-level fields of every version, grouped by key (see ``merge_fields``)."""
        return merge_fields(p.fields for p in self.newest_first())

    def sub_groups(self, key: str) -> list[list[Field]]:
        """Sub-fields of the per_document field ``key`` over every version, grouped by key."""
        return merge_fields(
            f.fields for p in self.newest_first() for f in p.fields if f.key == key and f.kind.container
        )

    @property
    def has_skip(self) -> bool:
        return any(p.skip is not None for p in self.newest_first())


def fields_by_key(protocol: Protocol) -> dict[str, Field]:
    return {f.key: f for f in protocol.fields}
