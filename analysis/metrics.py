"""Automatic metric scores: the researcher's upload, and their correlation with the human scores.

``metric_upload_create`` parses the file against the study's items and pools before anything is
stored: a refused file raises ``MetricCSVError`` (line-numbered) and leaves no trace. The study's
latest upload is the one analysed; ``metric_result`` (called by the analysis) takes the human
ratings of one field from the analysis's one read and hands a plain frame to ``stats.correlation``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from django.contrib.auth.models import AbstractBaseUser
from django.core.files.base import ContentFile
from django.db import transaction

from stats.columns import AnnotationColumns
from stats.correlation import (
    MetricCSVError,
    MetricScores,
    metric_correlations,
    parse_metric_csv,
)
from stats.reports import CompletePrompts
from stats.versions import ProtocolSet, fields_by_key
from studies.models import Study
from studies.protocol import Field

from .models import MetricUpload
from .reader import annotation_columns, complete_prompts_of, item_names, items_named, protocol_set

CHUNK_SIZE = 2000
MAX_UPLOAD_BYTES = 20 * 1024 * 1024
# The body may carry the multipart wrapping beside a file of the limit; a body larger still is
# refused before it is read (studies.uploads), a file over the limit by the form.
UPLOAD_SLACK_BYTES = 64 * 1024


def upload_limit() -> int:
    """The largest request the metric upload (page and API) reads."""
    return MAX_UPLOAD_BYTES + UPLOAD_SLACK_BYTES

MAX_ERRORS = 20
HUMAN_LEVELS = ("ordinal", "interval", "ratio")
# A scale with one of these keys is the human score even when another scale comes first
# (CulturalFrames: "overall", the 1–5 rating its paper correlates metrics with, after "alignment").
PREFERRED_HUMAN_FIELDS = ("overall",)
N_BOOT = 1000
SEED = 0

__all__ = ["MAX_UPLOAD_BYTES", "upload_limit", "MetricCSVError", "human_field", "metric_result", "metric_upload_create",
           "metric_upload_latest"]


# --- reads ------------------------------------------------------------------------------------


def metric_upload_latest(*, study: Study) -> MetricUpload | None:
    """The upload the analysis uses: the study's newest."""
    return MetricUpload.objects.filter(study=study).order_by("-created_at", "-id").first()


def _study_items(study: Study) -> set[str]:
    """The study's external ids: the ids a metric file names, kept as written (the analysis names
    items by them too)."""
    return set(study.items.values_list("external_id", flat=True).iterator(chunk_size=CHUNK_SIZE))


def _study_countries(study: Study) -> list[str]:
    return list(study.pools.values_list("country", flat=True))


def _parse(study: Study, data: bytes) -> MetricScores:
    return parse_metric_csv(data, items=_study_items(study), countries=_study_countries(study), max_errors=MAX_ERRORS)


# --- the upload -------------------------------------------------------------------------------


@transaction.atomic
def metric_upload_create(*, study: Study, user: AbstractBaseUser | None, name: str, data: bytes) -> MetricUpload:
    """Store a metric file that parses against the study; raises ``MetricCSVError`` otherwise
    (nothing stored). Uploading makes the latest analysis out of date for its metric section."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise MetricCSVError([f"the file is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB"])
    scores = _parse(study, data)
    upload = MetricUpload(
        study=study,
        uploaded_by=user,
        original_name=name[:255],
        rows=len(scores.rows),
        metrics=scores.metrics,
        summary=scores.as_dict(),
    )
    upload.file.save("metrics.csv", ContentFile(data), save=False)
    try:
        upload.scores_file.save("scores.csv", ContentFile(_scores_csv(scores)), save=False)
        upload.save()
    except Exception:
        upload.file.delete(save=False)
        if upload.scores_file:
            upload.scores_file.delete(save=False)
        raise
    return upload


SCORE_COLUMNS = ["item", "country", "metric", "score"]
STORED_COLUMNS = ["external_id", "country", "metric", "score"]  # "item" (a primary key) before external ids


def _scores_csv(scores: MetricScores) -> bytes:
    """The parsed scores (item's external id, country or empty, metric, score) as CSV: what the
    analysis reads back with pandas' C parser instead of parsing the upload again."""
    frame = pd.DataFrame.from_records(scores.rows, columns=STORED_COLUMNS)
    return frame.to_csv(index=False, float_format="%.17g").encode()


def _stored_scores(upload: MetricUpload, names: Mapping[int, str]) -> pd.DataFrame:
    """The scores of ``upload`` as parsed when it was stored, each item by its external id
    (an upload stored before external ids holds primary keys: named here by ``names``)."""
    with upload.scores_file.open("rb") as fh:
        frame = pd.read_csv(
            fh, dtype={"external_id": str, "item": np.int64, "country": object, "metric": str, "score": np.float64},
            keep_default_na=False, na_values={"country": [""]},
        )
    if "external_id" in frame.columns:
        return frame.rename(columns={"external_id": "item"})
    return frame.assign(item=items_named(frame["item"].to_numpy(), names))


# --- the analysis -----------------------------------------------------------------------------


def human_field(protocols: ProtocolSet, preferred: Sequence[str] = PREFERRED_HUMAN_FIELDS) -> Field | None:
    """The field whose answers are the human score: a ``scale`` at the ordinal, interval or ratio
    level — one keyed in ``preferred`` if there is one, else the first in the current spec.
    (A study setting naming the field can replace ``preferred`` later.)"""
    scales = [f for f in protocols.current.fields if f.kind.numeric and f.level in HUMAN_LEVELS]
    return next((f for key in preferred for f in scales if f.key == key), scales[0] if scales else None)


def _human_frame(
    columns: AnnotationColumns, key: str, protocols: ProtocolSet, countries: dict[int, str], names: Mapping[int, str]
) -> pd.DataFrame:
    """(item, country, rater, value) of the answers to ``key``, each item by its external id
    (``names``); answers given under a version where ``key`` was not a scale, skips and blanks are
    left out."""
    answered = columns.answered()
    scale_versions = [v for v in answered.versions() if _is_scale(fields_by_key(protocols.for_version(v)).get(key))]
    mine = answered.take(np.isin(answered.version, scale_versions))
    values = mine.keys[key].numbers(_scale_value)
    kept = ~np.isnan(values)
    return pd.DataFrame({
        "item": items_named(mine.item[kept], names),
        "country": mine.countries(countries)[kept],
        "rater": mine.annotator[kept],
        "value": values[kept],
    })


def _is_scale(f: Field | None) -> bool:
    return f is not None and f.kind.numeric


def _scale_value(value: Any) -> float | None:
    if value is None or value == "" or isinstance(value, (list, dict, bool)):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def metric_result(
    *,
    study: Study,
    max_id: int,
    columns: AnnotationColumns | None = None,
    protocols: ProtocolSet | None = None,
    complete_only: bool = False,
    complete: CompletePrompts | None = None,
    items: Mapping[int, str] | None = None,
) -> dict[str, Any] | None:
    """Each uploaded metric against the human score per item (per (item, country) when every
    pool rates every item: CAIRE), beside the human–human baseline; None when nothing was uploaded.

    ``columns``: the analysis's one read of the annotations up to ``max_id`` (its fingerprint),
    holding at least the human field's key, and ``protocols`` the specs it was given under; both
    read here when not given.
    ``complete_only`` restricts both sides to the prompts with an image from every model
    (``complete``: that selection, when the caller has it already). Items are matched and named
    by their external ids (``items``: item id → external id, read here when not given)."""
    upload = metric_upload_latest(study=study)
    if upload is None:
        return None
    protocols = protocols or protocol_set(study=study, max_id=max_id)
    upload_info = {
        "id": upload.pk,
        "name": upload.original_name,
        "rows": upload.rows,
        "metrics": list(upload.metrics),
        "uploaded_at": upload.created_at.isoformat(),
    }
    f = human_field(protocols)
    if f is None:
        return {"upload": upload_info, "human_field": None,
                "reason": "the protocol has no scale at the ordinal, interval or ratio level to compare with"}
    names = items if items is not None else item_names(study=study)
    scores = _stored_scores(upload, names)
    countries = dict(study.pools.values_list("pk", "country"))
    if columns is None:
        columns = annotation_columns(study=study, max_id=max_id, keys=[f.key])
    per_country = not study.by_country
    only = complete if complete is not None else complete_prompts_of(study=study) if complete_only else None
    found = metric_correlations(
        _human_frame(columns, f.key, protocols, countries, names),
        scores,
        per_country=per_country,
        seed=SEED,
        n_boot=N_BOOT,
        only_items={names.get(i, str(i)) for i in only.item_ids} if only is not None else None,
    )
    return {
        **found.as_dict(),
        "upload": upload_info,
        "human_field": {
            "key": f.key,
            "label": f.label,
            "level": f.level,
            "why": (
                f"the scale preferred for metric correlation ({f.key})"
                if f.key in PREFERRED_HUMAN_FIELDS
                else "the first scale of the protocol at the ordinal, interval or ratio level"
            ),
        },
        "complete_only": only.as_dict() if only is not None else None,
    }
