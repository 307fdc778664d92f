"""Done when the nine demo studies each export in every format that fits their protocol and each file
opens in its client: each demo study built through the real import (``studies.demo``), answered by
two annotators per pool on a few items (answers made for whatever its protocol asks), analysed, then
exported in every fitting format and opened by pandas, pyarrow, pycocotools or datasets."""

import io
import json
import shutil
import zipfile
from pathlib import Path

import datasets
import pandas as pd
import pyarrow.parquet as pq
import pytest
from django.conf import settings as django_settings
from django.core.files.storage import default_storage
from pycocotools.coco import COCO

from analysis.models import AnalysisRun
from analysis.reader import protocol_set
from analysis.services import analysis_run
from annotation.models import Annotator
from exports.formats import formats_for, tables_for
from exports.models import ExportJob
from exports.services import export_build, export_start
from stats.gold import COLUMNS as PAPER_COLUMNS
from stats.gold import GOLD_COLUMNS
from studies.demo import ORDER, demos_load, study_build
from studies.demo_images import images_generate
from studies.models import Item
from studies.protocol import UploadRef, value_token
from tests.annotations import annotate, annotators, submitted

datasets.disable_progress_bars()
FIXTURES = Path(django_settings.BASE_DIR) / "fixtures" / "demo"
ITEMS_PER_POOL = 3


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    target = tmp_path_factory.mktemp("fixtures") / "demo"
    shutil.copytree(FIXTURES, target, ignore=shutil.ignore_patterns("images"))
    for demo in demos_load(target):
        images_generate(rows_file=demo.rows_file, folder=demo.folder / "images")
    return target


def form_for(item, n: int, upload: UploadRef | None) -> dict:
    """A submission of ``item``'s protocol that the engine accepts, varied by ``n``."""
    form: dict = {}
    documents = list(item.documents.order_by("position"))

    def choice(field, shift=0):
        return value_token(field.choices[(n + shift) % len(field.choices)].value)

    for field in item.study.spec.fields:
        kind = field.type
        if kind in ("scale", "choice"):
            form[field.key] = choice(field)
        elif kind == "multi":
            form[field.key] = [choice(field)]
        elif kind == "highlight":
            form[field.key] = ["0", "1"] if n % 2 else ["0"]
        elif kind == "text":
            words = min(max(field.min_words or 0, 6), field.max_words or 6)
            text = " ".join(["rice", "tea", "kite", "drum", "lamp", "silk"][:words] + ["local"] * max(0, words - 6))
            form[field.key] = text + "x" * max(0, (field.min_chars or 0) - len(text))
        elif kind == "url_list":
            form[f"{field.key}.title"], form[f"{field.key}.url"] = ["An article"], ["https://en.wikipedia.org/wiki/Food"]
        elif kind == "upload":
            form[field.key] = upload.token
        elif kind == "bbox":
            width, height = (item.width, item.height) if field.over == "image" else (upload.width, upload.height)
            form[field.key] = json.dumps([[width // 10 + n, height // 10, width // 5, height // 5]])
        elif kind == "pick_one":
            form[field.key] = str(item.candidates[n % len(item.candidates)]["id"])
        elif kind == "per_document":
            for i, _ in enumerate(documents):
                for sub in field.fields:
                    form[f"{field.key}.{i}.{sub.key}"] = choice(sub, i)
    return form


def answered(study) -> int:
    made = 0
    for pool in study.pools.all():
        people = annotators(pool, 2)
        items = Item.objects.filter(study=study, is_example=False, quotas__pool=pool).order_by("pk")[:ITEMS_PER_POOL]
        for item in items:
            for n, who in enumerate(people):
                upload = UploadRef(f"up-{item.pk}-{n}", 640, 480, f"{item.pk:032x}{n:032x}", f"photo-{item.pk}.jpg")
                form = form_for(item, n, upload)
                documents = list(item.documents.order_by("position"))
                annotate(who, item, submitted(item, form, documents=documents, uploads=[upload]))
                made += 1
    return made


def opened(job: ExportJob, fmt: str, tmp: Path, study) -> int:
    """Open the export with its format's client, checking its columns where they are known; the rows it read."""
    with default_storage.open(job.file.name, "rb") as fh:
        data = fh.read()
    tables = tables_for(protocol_set(study=study, max_id=10**9))
    kinds = [spec.kind for spec in study.spec.reports]
    if fmt == "coco":
        (tmp / "coco.json").write_bytes(data)
        coco = COCO(str(tmp / "coco.json"))
        assert coco.getAnnIds() and coco.getImgIds()
        assert {c["name"] for c in coco.loadCats(coco.getCatIds())} == {
            x.key for x in study.spec.fields if x.type == "bbox"}
        return len(coco.getAnnIds())
    if not job.is_zip:
        reader = {"csv": pd.read_csv, "parquet": pd.read_parquet,
                  "jsonl": lambda b: pd.read_json(b, lines=True)}[fmt]
        frame = reader(io.BytesIO(data))
        assert list(frame.columns) == tables.schema.names, fmt
        return len(frame)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        zf.extractall(tmp / fmt)
        names = zf.namelist()
    root = tmp / fmt
    if fmt == "hf":  # every file under one top folder, the one the manifest inside it names
        (top,) = {n.split("/", 1)[0] for n in names}
        root, names = root / top, [n.split("/", 1)[1] for n in names]
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    assert manifest.get("folder") == (top if fmt == "hf" else None)
    if fmt in ("gold", "hf"):  # every paper table the protocol declares is made
        assert manifest.get("not_computed") == {}, manifest.get("not_computed")
    if fmt == "hf":
        text = (root / "README.md").read_text(encoding="utf-8")
        import yaml

        head = yaml.safe_load(text.split("---\n", 2)[1])
        assert "not computed" not in text
        declared = {c["config_name"]: c["features"] for c in head["dataset_info"]}
        rows = 0
        for config in head["configs"]:
            loaded = datasets.load_dataset(str(root), config["config_name"], cache_dir=str(tmp / "hf-cache"))
            for split in loaded.values():
                assert split.features._to_yaml_list() == declared[config["config_name"]]
            rows += sum(split.num_rows for split in loaded.values())
        assert list(load_split(root, "raw").features) == tables.schema.names
        return rows
    if fmt == "gold":
        assert {f"paper_{kind}.parquet" for kind in kinds} <= set(names)
        for kind in kinds:
            assert pq.read_schema(root / f"paper_{kind}.parquet").names == list(PAPER_COLUMNS[kind]), kind
            assert list(pd.read_csv(root / f"paper_{kind}.csv").columns) == list(PAPER_COLUMNS[kind]), kind
        if any(x.level or x.type == "per_document" for x in study.spec.fields):
            for table in ("gold_by_country", "gold_by_item"):
                assert pq.read_schema(root / f"{table}.parquet").names == list(GOLD_COLUMNS), table
    rows = 0
    for name in names:
        path = root / name
        if name.endswith(".parquet"):
            rows += pq.read_table(path).num_rows
        elif name.endswith(".csv"):
            rows += len(pd.read_csv(path)) if path.stat().st_size else 0
        elif name.endswith(".jsonl"):
            rows += len(pd.read_json(path, lines=True)) if path.stat().st_size else 0
    return rows


def load_split(folder: Path, config: str):
    loaded = datasets.load_dataset(str(folder), config, cache_dir=str(folder.parent / "hf-cache"))
    return next(iter(loaded.values()))


@pytest.mark.parametrize("name", ORDER)
def test_each_demo_study_exports_in_every_fitting_format_and_each_file_opens(name, drawn, owner, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    (demo,) = demos_load(drawn / name)
    study, _ = study_build(demo=demo, owner=owner)
    assert answered(study) > 0
    run = analysis_run(run_id=AnalysisRun.objects.create(study=study, requested_by=owner, resamples=0).pk)
    assert run.status == AnalysisRun.Status.DONE, run.error
    fitting = [fmt.name for fmt in formats_for(protocol_set(study=study, max_id=10**9))]
    assert {"csv", "jsonl", "parquet", "hf"} <= set(fitting)
    assert ("gold" in fitting) == any(x.level or x.type == "per_document" for x in study.spec.fields) or bool(
        study.spec.reports)
    assert ("coco" in fitting) == any(x.type == "bbox" for x in study.spec.fields)
    for fmt in fitting:
        job = export_build(job_id=export_start(study=study, user=owner, format=fmt, options={"images": True}).pk)
        assert job.status == ExportJob.Status.DONE, (name, fmt, job.error)
        out = tmp_path / fmt
        out.mkdir()
        assert opened(job, fmt, out, study) > 0, (name, fmt)
    assert Annotator.objects.filter(study=study).exists()
