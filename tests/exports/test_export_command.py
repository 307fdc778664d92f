"""``manage.py export STUDY --format F --out PATH``: the service run here and now, gated like the page."""

import hashlib
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from django.core.management import CommandError, call_command

from analysis.models import AnalysisRun
from analysis.services import analysis_run
from exports.models import ExportJob
from tests.annotations import annotate, annotators

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def analysed(study, pool, items, owner):
    for rater in annotators(pool, 2):
        for item in items[:3]:
            annotate(rater, item)
    analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    return study


@pytest.fixture
def out(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    return folder


def run(*args) -> str:
    out = io.StringIO()
    call_command("export", *map(str, args), stdout=out)
    return out.getvalue()


def test_it_writes_the_file_and_its_manifest_and_says_so(analysed, out):
    path = out / "rated.parquet"
    printed = run(analysed.pk, "--format", "parquet", "--out", path)
    table = pq.read_table(path)
    assert table.num_rows == 6
    manifest = json.loads((out / "rated.parquet.manifest.json").read_text())
    [entry] = manifest["files"]
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert entry["sha256"] == digest and entry["rows"] == 6 and manifest["format"] == "parquet"
    assert manifest["analysis_run"] == AnalysisRun.objects.get().pk
    assert f"annotations.parquet: 6 rows, {path.stat().st_size} bytes, sha256 {digest}" in printed
    assert str(path) in printed
    assert not ExportJob.objects.exists()  # the command keeps no job row: the file is where it was asked
    assert sorted(p.name for p in out.iterdir()) == ["rated.parquet", "rated.parquet.manifest.json"]


def test_a_protocol_with_documents_gives_a_zip_with_the_manifest(owner, tmp_path):
    from tests import factories as f
    from tests.annotations import add_documents, inline_study, submitted
    from tests.specs import RAVENEA_DOCS, ravenea_form

    study = inline_study(owner, RAVENEA_DOCS, name="RAVENEA")
    pool = f.make_pool(study, "ID", "Indonesia")
    item = f.make_items(study, "ID", 1)[0]
    docs = add_documents(item, 2)
    annotate(annotators(pool, 1)[0], item, submitted(item, ravenea_form([("yes",) * 3, ("no",) * 3]), documents=docs))
    analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    path = tmp_path / "ravenea.zip"
    printed = run(study.pk, "--format", "jsonl", "--out", path)
    with zipfile.ZipFile(path) as zf:
        assert zf.namelist() == ["annotations.jsonl", "documents.jsonl", "manifest.json"]
    assert "documents.jsonl: 2 rows" in printed and "manifest.json in the ZIP" in printed


def test_it_refuses_an_unknown_format(analysed, out):
    with pytest.raises(CommandError, match="unknown format 'xlsx': choose one of csv, jsonl, parquet"):
        run(analysed.pk, "--format", "xlsx", "--out", out / "x.xlsx")
    assert not any(out.iterdir())


def test_it_refuses_an_unknown_study(db, tmp_path):
    with pytest.raises(CommandError, match="no study with id 999"):
        run(999, "--format", "csv", "--out", tmp_path / "x.csv")


def test_it_refuses_data_the_analysis_did_not_see(analysed, pool, items, out):
    annotate(annotators(pool, 1)[0], items[0])
    with pytest.raises(CommandError, match="1 new annotation since the last analysis"):
        run(analysed.pk, "--format", "csv", "--out", out / "x.csv")
    assert not any(out.iterdir())


def test_it_exits_non_zero_on_a_refusal(tmp_path):
    """The real command line: a refusal is a message on stderr and an exit code of 1."""
    env = {"DJANGO_SETTINGS_MODULE": "config.settings_test", "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3",
           "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "manage.py", "export", "1", "--format", "xlsx", "--out", str(tmp_path / "x")],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )
    assert done.returncode != 0
    assert "unknown format 'xlsx'" in done.stderr


def test_a_zip_is_named_zip_when_out_names_no_zip_and_the_command_says_which_file(analysed, out):
    printed = run(analysed.pk, "--format", "hf", "--out", out / "rated")
    written = out / "rated.zip"
    assert sorted(p.name for p in out.iterdir()) == ["rated.zip"]
    with zipfile.ZipFile(written) as zf:
        (top,) = {n.split("/", 1)[0] for n in zf.namelist()}
    assert f"wrote {written} (hf," in printed and "named .zip rather than rated" in printed
    assert f"unpacks to the folder {top}/" in printed and f"manifest: {top}/manifest.json in the ZIP" in printed


def test_a_zip_of_another_format_is_named_zip_too(owner, tmp_path):
    from tests import factories as f
    from tests.annotations import add_documents, inline_study, submitted
    from tests.specs import RAVENEA_DOCS, ravenea_form

    study = inline_study(owner, RAVENEA_DOCS, name="RAVENEA")
    pool = f.make_pool(study, "ID", "Indonesia")
    item = f.make_items(study, "ID", 1)[0]
    docs = add_documents(item, 2)
    annotate(annotators(pool, 1)[0], item, submitted(item, ravenea_form([("yes",) * 3, ("no",) * 3]), documents=docs))
    analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner).pk)
    printed = run(study.pk, "--format", "jsonl", "--out", tmp_path / "ravenea.jsonl")
    assert zipfile.is_zipfile(tmp_path / "ravenea.jsonl.zip") and not (tmp_path / "ravenea.jsonl").exists()
    assert f"wrote {tmp_path / 'ravenea.jsonl.zip'}" in printed


def test_a_folder_or_no_out_takes_the_downloads_name_and_a_single_file_keeps_its_own(analysed, out, monkeypatch,
                                                                                     tmp_path):
    from django.utils import timezone

    printed = run(analysed.pk, "--format", "hf", "--out", out)
    (written,) = out.iterdir()
    with zipfile.ZipFile(written) as zf:
        (top,) = {n.split("/", 1)[0] for n in zf.namelist()}
    assert written.name == f"{top}.zip" and top.startswith(f"tessera-study-{analysed.pk}-")
    assert f"wrote {written}" in printed and "rather than" not in printed
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    run(analysed.pk, "--format", "csv")  # no --out: the current folder
    day = timezone.now().date().isoformat()
    name = f"culturalframes-rating_csv_{day}.csv"
    assert sorted(p.name for p in here.iterdir()) == [name, f"{name}.manifest.json"]
    run(analysed.pk, "--format", "parquet", "--out", here / "rated")  # one file, not a ZIP: the name asked for
    assert pq.read_table(here / "rated").num_rows == 6 and (here / "rated.manifest.json").exists()
    with pytest.raises(CommandError, match="is not a folder"):
        run(analysed.pk, "--format", "hf", "--out", tmp_path / "missing" / "x.zip")
    assert not (tmp_path / "missing").exists()
