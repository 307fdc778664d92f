"""A ``croissant.json`` read as a datasets track's checker reads it: validated by ``mlcroissant``
(an error raises; a warning fails the test too), and its record sets' records loaded."""

from pathlib import Path

import mlcroissant as mlc


def croissant_valid(path: Path) -> mlc.Dataset:
    """The Croissant file at ``path`` validated: no error, no warning."""
    dataset = mlc.Dataset(jsonld=str(path))
    assert not dataset.metadata.ctx.issues.warnings, dataset.metadata.ctx.issues.warnings
    return dataset


def croissant_records(path: Path) -> dict[str, list[dict]]:
    """Every record set's records, by its name, loaded from the files beside ``path``."""
    dataset = croissant_valid(path)
    return {rs.name: list(dataset.records(record_set=rs.uuid)) for rs in dataset.metadata.record_sets}
