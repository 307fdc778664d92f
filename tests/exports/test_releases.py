"""Each export is of a numbered release of the study's gold data: the same data checked by the same
run is the same release whatever the format; new annotations, an exclusion, a new protocol version
or a new run on the same data make the next, whose changelog says what changed. The manifest, the
dataset card (with its BibTeX citation) and the export panel name it (the API's field: in
tests/api/test_exports_api.py); two hf exports of one release are the same files; two exports of
new data at once take one release (PostgreSQL, threads); an export refused by the gate makes none."""

import copy
import io
import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from analysis.fingerprint import data_fingerprint
from analysis.models import AnalysisRun
from annotation.services import annotator_exclude, annotator_include
from exports.formats.base import ReleaseInfo
from exports.formats.card import citation_text
from exports.models import ExportJob, Release
from exports.releases import changes, release_for
from exports.services import ExportRefused, export_start
from studies.models import Item
from studies.services import study_delete, study_set_protocol
from tests import factories as f
from tests.annotations import annotate, annotators, submitted
from tests.exports.test_gold_export import export_again, exported, unzipped
from tests.helpers import run_in_threads

REASON = "Same answer to every item in 2 seconds"


def rate(study, country="IN", n=1):
    """``n`` new annotations in ``country``'s pool, each by a new annotator of a new item."""
    pool = study.pools.get(country=country)
    for who, item in zip(annotators(pool, n), f.make_items(study, country, n), strict=True):
        item = Item.objects.get(pk=item.pk)  # its study as it is now (its protocol version)
        annotate(who, item, submitted(item, {"relevance": "3"}))


# --- the changelog, a pure diff ----------------------------------------------------------------

FACTS = {"data_fingerprint": "5:9:1.1:t", "analysis_run": 4, "count": 5, "max_id": 9, "annotators": 4,
         "countries": {"IN": 4, "JP": 1}, "versions": {"1": 5}, "excluded": []}


def test_the_first_release_says_so():
    assert changes(None, FACTS) == ["First release: 5 annotations by 4 annotators in 2 countries.",
                                    "Checked against analysis run 4."]


def test_the_changelog_counts_the_annotations_added_and_removed():
    now = {**FACTS, "data_fingerprint": "6:12:1.1:u", "analysis_run": 5, "count": 6, "max_id": 12}
    lines = changes(FACTS, now, added=3, previous_number=1)
    assert lines[0] == "3 annotations added since release 1."
    assert lines[1].startswith("2 annotations removed since release 1 (withdrawn, flagged")
    assert lines[-1] == "Checked against analysis run 5."


def test_the_changelog_names_who_was_excluded_and_why_and_who_came_back():
    before = {**FACTS, "excluded": [{"pseudonym": "ann-old", "reason": "slow"}]}
    now = {**FACTS, "data_fingerprint": "x", "excluded": [{"pseudonym": "ann-new", "reason": REASON}]}
    lines = changes(before, now, previous_number=2)
    assert f"Annotator ann-new excluded: {REASON}." in lines
    assert "Annotator ann-old included again." in lines
    assert not any("added" in line for line in lines)


def test_the_changelog_lists_protocol_versions_and_countries_new_since():
    now = {**FACTS, "data_fingerprint": "x", "versions": {"1": 5, "2": 1, "10": 2},
           "countries": {**FACTS["countries"], "KE": 3}}
    lines = changes(FACTS, now, added=3, previous_number=1)
    assert "Protocol version 2 new since: 1 annotation given under it." in lines
    assert lines.index("Protocol version 2 new since: 1 annotation given under it.") < lines.index(
        "Protocol version 10 new since: 2 annotations given under it.")
    assert "Country KE added: 3 annotations." in lines


def test_the_same_data_checked_by_a_new_run_is_re_checked():
    assert changes(FACTS, {**FACTS, "analysis_run": 7}, previous_number=3) == [
        "The same data as release 3, re-checked by analysis run 7 (it was run 4)."]


def test_new_data_with_nothing_shipped_changed_says_the_reviews_changed():
    lines = changes(FACTS, {**FACTS, "data_fingerprint": "5:9:2.12:t", "analysis_run": 5}, previous_number=1)
    assert lines[0] == "The same annotations as release 1; their reviews changed."


# --- the citation ------------------------------------------------------------------------------


def test_the_citation_is_a_bibtex_entry_naming_the_release():
    release = ReleaseInfo(number=3, created="2026-11-30T00:05:00Z", data_fingerprint="6:12:1.1:t", analysis_run=8,
                          previous=2)
    text = citation_text("Café {study} 50% <b>", release)
    assert text.startswith("@misc{cafe_study_50_b_release_3,\n") and text.endswith("\n}")
    assert "  title = {Café \\{study\\} 50\\% \\textless{}b\\textgreater{}},\n" in text
    assert "  year = {2026},\n  version = {3.0.0},\n" in text
    assert "data fingerprint 6:12:1.1:t, checked against analysis run 8), exported with Tessera" in text


# --- releases of exports -----------------------------------------------------------------------


def test_the_first_export_is_release_1_and_another_format_of_the_same_data_the_same(caire, owner):
    study, _, _ = caire
    first = exported(study, owner, "csv")
    assert first.release.number == 1 and first.release.changes[0].startswith("First release: 5 annotations")
    manifest = first.manifest["release"]
    assert manifest == {"number": 1, "version": "1.0.0", "created": manifest["created"],
                        "data_fingerprint": first.data_fingerprint, "analysis_run": first.analysis_id,
                        "previous": None, "changes": first.release.changes}
    again = export_again(study, owner, "parquet")
    assert again.release == first.release and Release.objects.count() == 1
    assert again.manifest["release"] == manifest


def test_the_command_writes_the_release_the_page_would_and_says_which(caire, owner, tmp_path):
    study, _, _ = caire
    job = exported(study, owner, "csv")
    out = io.StringIO()
    call_command("export", str(study.pk), "--format", "jsonl", "--out", str(tmp_path), stdout=out)
    assert "  release 1 (1.0.0) of the study's gold data: First release: 5 annotations" in out.getvalue()
    written = json.loads(next(tmp_path.glob("*.manifest.json")).read_text(encoding="utf-8"))
    assert written["release"] == job.manifest["release"] and Release.objects.count() == 1


def test_new_annotations_make_release_2_that_counts_them(caire, owner):
    study, _, _ = caire
    exported(study, owner, "csv")
    rate(study, "IN", 2)
    job = exported(study, owner, "parquet")
    assert job.release.number == 2 and job.manifest["release"]["previous"] == 1
    assert job.release.changes[0] == "2 annotations added since release 1."
    assert job.release.changes[-1] == f"Checked against analysis run {job.analysis_id}."


def test_an_exclusion_is_listed_with_its_reason_and_an_inclusion_after_it(caire, owner):
    study, _, (a, b, c, d) = caire
    exported(study, owner, "csv")
    annotator_exclude(annotator=b, by=owner, reason=REASON)
    job = exported(study, owner, "csv")
    assert job.release.number == 2
    assert job.release.changes[:2] == [
        "2 annotations removed since release 1 (withdrawn, flagged by a checker or of an excluded annotator).",
        f"Annotator {b.pseudonym} excluded: {REASON}."]
    annotator_include(annotator=b)
    back = exported(study, owner, "csv")
    assert back.release.number == 3 and f"Annotator {b.pseudonym} included again." in back.release.changes


def test_a_new_protocol_version_and_a_new_country_are_listed(caire, owner):
    study, _, _ = caire
    exported(study, owner, "csv")
    spec = copy.deepcopy(study.protocol)
    spec["fields"][0]["label"] = "How relevant is it?"
    study_set_protocol(study=study, protocol=spec)
    f.make_pool(study, "KE", "Kenya")
    rate(study, "KE", 1)
    job = exported(study, owner, "csv")
    assert job.release.changes == [
        "1 annotation added since release 1.",
        "Protocol version 2 new since: 1 annotation given under it.",
        "Country KE added: 1 annotation.",
        f"Checked against analysis run {job.analysis_id}.",
    ]


def test_a_new_run_on_the_same_data_is_the_next_release_re_checked(caire, owner):
    study, _, _ = caire
    first = exported(study, owner, "csv")
    job = exported(study, owner, "csv")  # a new analysis run, the same data
    assert job.data_fingerprint == first.data_fingerprint and job.analysis_id != first.analysis_id
    assert job.release.number == 2
    assert job.release.changes == [f"The same data as release 1, re-checked by analysis run {job.analysis_id} "
                                   f"(it was run {first.analysis_id})."]


def test_an_export_refused_by_the_gate_makes_no_release(caire, owner):
    study, _, _ = caire
    with pytest.raises(ExportRefused):  # no analysis yet
        export_start(study=study, user=owner, format="csv")
    assert not Release.objects.exists()
    exported(study, owner, "csv")
    rate(study, "IN", 1)
    with pytest.raises(ExportRefused, match="1 new annotation since the last analysis"):
        export_start(study=study, user=owner, format="csv")
    assert list(Release.objects.values_list("number", flat=True)) == [1]


def test_the_card_and_the_manifest_cite_the_release(caire, owner):
    study, _, _ = caire
    exported(study, owner, "csv")
    rate(study, "JP", 1)
    job = exported(study, owner, "hf")
    files = unzipped(job)
    top = job.manifest["folder"]
    card = files[f"{top}/README.md"].decode("utf-8")
    manifest = json.loads(files[f"{top}/manifest.json"])
    assert manifest["release"]["number"] == 2 and manifest["release"]["version"] == "2.0.0"
    release = card.split("## Release\n", 1)[1].split("## Citation\n", 1)[0]
    assert "Release 2 (version 2.0.0)" in release and f"`{job.data_fingerprint}`" in release
    assert "What changed since release 1:" in release and "- 1 annotation added since release 1." in release
    citation = card.split("## Citation\n", 1)[1]
    assert "```bibtex\n@misc{caire_small_release_2," in citation and "version = {2.0.0}" in citation
    assert f"analysis run {job.analysis_id}), exported with Tessera" in citation
    assert top.split("-")[-2] == job.release.created.strftime("%Y%m%d")  # the folder's day is the release's


@pytest.mark.parametrize(("study_of", "images"), [("caire", False), ("photos", True)])
def test_two_hf_exports_of_one_release_are_the_same_files(study_of, images, owner, monkeypatch, request):
    study = request.getfixturevalue(study_of)[0]
    first = exported(study, owner, "hf", images=images)
    later = timezone.now() + timedelta(days=1, seconds=7)
    monkeypatch.setattr(timezone, "now", lambda: later)  # written a day later: the files carry the release's date
    second = export_again(study, owner, "hf", images=images)
    assert second.manifest["created"] != first.manifest["created"]
    assert second.release == first.release and second.manifest["folder"] == first.manifest["folder"]
    assert first.manifest["files"] == second.manifest["files"]  # names, rows, bytes and sha256
    a, b = unzipped(first), unzipped(second)
    assert {n: v for n, v in a.items() if not n.endswith("manifest.json")} == {
        n: v for n, v in b.items() if not n.endswith("manifest.json")}


def test_the_panel_shows_the_release_and_its_changelog(client, caire, owner):
    study, _, _ = caire
    exported(study, owner, "csv")
    rate(study, "IN", 1)
    job = exported(study, owner, "csv")
    client.force_login(owner)
    page = client.get(reverse("exports:export-status", args=[study.pk, job.pk])).content.decode()
    assert "Release 2 of the study's gold data" in page and "What changed since release 1" in page
    assert "<li>1 annotation added since release 1.</li>" in page


def test_a_study_with_releases_is_deleted_with_them(caire, owner):
    study, _, _ = caire
    exported(study, owner, "csv")
    study_delete(study=study)
    assert not Release.objects.exists() and not ExportJob.objects.exists()


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_exports_of_the_same_new_data_at_once_take_one_release(caire, owner):
    study, _, _ = caire
    now = data_fingerprint(study=study)
    runs = [AnalysisRun.objects.create(study=study, requested_by=owner) for _ in range(2)]
    calls = [(runs[n % 2],) for n in range(8)]
    for _ in range(3):
        Release.objects.all().delete()
        made = run_in_threads(lambda run: release_for(study=study, analysis=run, fingerprint=now), calls)
        by_run = {run.pk: {r.pk for r, (call_run,) in zip(made, calls, strict=True) if call_run == run}
                  for run in runs}
        assert all(len(pks) == 1 for pks in by_run.values())  # each run's callers got one release
        assert sorted(Release.objects.values_list("number", flat=True)) == [1, 2]  # never one number twice
