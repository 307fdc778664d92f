"""Answers are exported and analysed with the spec of the version they were given under: a later
edit of the spec never reinterprets old data."""

import csv
import io

import krippendorff
import numpy as np
import pytest
from django.core.files.storage import default_storage

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from exports.services import export_build, export_start
from studies.models import ProtocolVersion
from studies.services import study_set_protocol
from tests import factories as f
from tests.annotations import annotate, annotators, inline_study

V1 = {
    "fields": [
        {"key": "mood", "type": "choice", "level": "nominal", "choices": ["calm", "busy"]},
        {"key": "season", "type": "choice", "level": "nominal", "choices": ["summer", "winter"]},
        {"key": "comment", "type": "text", "required": False},
    ]
}
V2 = {
    "fields": [
        {"key": "comment", "type": "text", "required": False},
        {"key": "mood", "type": "choice", "level": "nominal", "choices": ["calm", "busy"]},
        {"key": "crowd", "type": "scale", "level": "ordinal", "choices": [1, 2, 3]},
    ]
}
V1_ANSWERS = [  # (rater 0, rater 1) per item, as (mood, season)
    (("calm", "summer"), ("calm", "summer")),
    (("busy", "winter"), ("busy", "summer")),
    (("calm", "winter"), ("calm", "winter")),
]


@pytest.fixture
def edited(owner):
    """Three items answered under v1, then the spec edited (season removed, crowd added), then one
    more item answered under v2."""
    study = inline_study(owner, V1)
    pool = f.make_pool(study, "IN", "India")
    items = f.make_items(study, "IN", 4)
    raters = annotators(pool, 2)
    for item, pair in zip(items, V1_ANSWERS, strict=False):
        for rater, (mood, season) in zip(raters, pair, strict=True):
            annotate(rater, item, {"mood": mood, "season": season, "comment": f"{mood} in {season}"})
    study = study_set_protocol(study=study, protocol=V2)
    assert study.protocol_version == 2
    for rater, crowd in zip(raters, (3, 2), strict=True):
        annotate(rater, items[3], {"mood": "busy", "crowd": crowd})
    return study


def analyse(study, owner):
    run = analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    return run


def export_rows(study, owner):
    analyse(study, owner)
    job = export_build(job_id=export_start(study=study, user=owner).pk)
    with default_storage.open(job.file.name, "rb") as fh:
        return list(csv.DictReader(io.StringIO(fh.read().decode("utf-8"))))


def test_it_still_exports_a_field_removed_by_a_later_version(edited, owner):
    rows = export_rows(edited, owner)
    cols = list(rows[0])
    # The current spec's order, then the keys only older versions had.
    assert cols[cols.index("annotator") + 1 : cols.index("surplus")] == ["comment", "mood", "crowd", "season"]
    assert [r["season"] for r in rows] == ["summer", "summer", "winter", "summer", "winter", "winter", "", ""]
    assert [r["protocol_version"] for r in rows] == ["1"] * 6 + ["2"] * 2
    assert rows[0]["comment"] == "calm in summer" and rows[0]["crowd"] == ""
    assert (rows[6]["crowd"], rows[6]["mood"], rows[6]["season"]) == ("3", "busy", "")


def test_it_reads_a_version_without_a_stored_spec_with_the_current_one(edited, owner):
    ProtocolVersion.objects.filter(study=edited, version=1).delete()
    rows = export_rows(edited, owner)
    assert "season" not in rows[0]  # the current spec knows no season
    assert rows[0]["mood"] == "calm"
    run = analyse(edited, owner)
    assert run.result["fallback_versions"] == [1]


def test_it_analyses_a_field_removed_by_a_later_version(edited, owner):
    run = analyse(edited, owner)
    fields = {f["key"]: f for f in run.result["fields"]}
    assert list(fields) == ["mood", "crowd", "season"]
    assert run.result["older_versions"] == [1] and run.result["fallback_versions"] == []
    season = np.array([[0, 1, 1], [0, 0, 1]], dtype=float)  # raters × items 1-3 (summer = 0)
    assert fields["season"]["overall"]["alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data=season, level_of_measurement="nominal"), abs=1e-9
    )
    assert fields["season"]["overall"]["n_units"] == 3
    assert fields["mood"]["overall"]["n_units"] == 4  # answered under both versions
    assert fields["crowd"]["overall"]["n_units"] == 1


def test_a_key_that_changed_type_is_not_misread(owner):
    study = inline_study(owner, {"fields": [{"key": "q", "type": "choice", "level": "nominal", "choices": ["1", "2"]}]})
    pool = f.make_pool(study, "IN", "India")
    items = f.make_items(study, "IN", 2)
    raters = annotators(pool, 2)
    for item in items:
        for rater in raters:
            annotate(rater, item, {"q": "1"})
    protocol = {"fields": [{"key": "q", "type": "scale", "level": "ordinal", "choices": [1, 2]}]}
    study = study_set_protocol(study=study, protocol=protocol)
    run = analyse(study, owner)
    q = run.result["fields"][0]
    assert q["type"] == "scale" and q["out_of_domain"] == 4 and q["overall"]["n_ratings"] == 0
