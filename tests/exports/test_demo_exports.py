"""Done when the nine demo studies each export in every format that fits their protocol and each file
opens in its client: each demo study built through the real import (``studies.demo``), answered by
two annotators per pool on a few items (answers made for whatever its protocol asks), analysed, then
exported in every fitting format and opened by pandas, pyarrow, pycocotools or datasets."""

import io
import json
import shutil
import zipfile
from dataclasses import dataclass
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
from tests.exports.croissant_check import croissant_records

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


@dataclass(frozen=True)
class Answering:
    """What an answer is made from: the item, the annotator's number (which varies it), their upload."""

    item: Item
    n: int
    upload: UploadRef | None
    documents: list


def choice(field, n: int, shift: int = 0) -> str:
    return value_token(field.choices[(n + shift) % len(field.choices)].value)


def text_answer(field, a: Answering) -> dict:
    words = min(max(field.min_words or 0, 6), field.max_words or 6)
    text = " ".join(["rice", "tea", "kite", "drum", "lamp", "silk"][:words] + ["local"] * max(0, words - 6))
    return {field.key: text + "x" * max(0, (field.min_chars or 0) - len(text))}


def bbox_answer(field, a: Answering) -> dict:
    width, height = (a.item.width, a.item.height) if field.over == "image" else (a.upload.width, a.upload.height)
    return {field.key: json.dumps([[width // 10 + a.n, height // 10, width // 5, height // 5]])}


def per_document_answer(field, a: Answering) -> dict:
    return {
        f"{field.key}.{i}.{sub.key}": choice(sub, a.n, i) for i in range(len(a.documents)) for sub in field.fields
    }


# The form entries of an answer the engine accepts, by field type (a type not here is left unanswered).
ANSWERS = {
    "scale": lambda field, a: {field.key: choice(field, a.n)},
    "choice": lambda field, a: {field.key: choice(field, a.n)},
    "multi": lambda field, a: {field.key: [choice(field, a.n)]},
    "highlight": lambda field, a: {field.key: ["0", "1"] if a.n % 2 else ["0"]},
    "text": text_answer,
    "url_list": lambda field, a: {
        f"{field.key}.title": ["An article"], f"{field.key}.url": ["https://en.wikipedia.org/wiki/Food"]
    },
    "upload": lambda field, a: {field.key: a.upload.token},
    "bbox": bbox_answer,
    "pick_one": lambda field, a: {field.key: str(a.item.candidates[a.n % len(a.item.candidates)]["id"])},
    "per_document": per_document_answer,
}


def form_for(item, n: int, upload: UploadRef | None) -> dict:
    """A submission of ``item``'s protocol that the engine accepts, varied by ``n``."""
    answering = Answering(item, n, upload, list(item.documents.order_by("position")))
    form: dict = {}
    for field in item.study.spec.fields:
        if field.type in ANSWERS:
            form.update(ANSWERS[field.type](field, answering))
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
    if fmt == "coco":
        return coco_opened(data, tmp, study)
    if not job.is_zip:
        return file_opened(data, fmt, tables)
    root, names, top = unzipped(data, fmt, tmp)
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    assert manifest.get("folder") == top
    if fmt in ("gold", "hf"):  # every paper table the protocol declares is made
        assert manifest.get("not_computed") == {}, manifest.get("not_computed")
    if fmt == "hf":
        return hf_opened(root, tmp, tables)
    if fmt == "gold":
        gold_checked(root, names, study)
    return rows_in(root, names)


def coco_opened(data: bytes, tmp: Path, study) -> int:
    """The COCO file loaded by pycocotools, one category per bbox field; its annotations."""
    (tmp / "coco.json").write_bytes(data)
    coco = COCO(str(tmp / "coco.json"))
    assert coco.getAnnIds() and coco.getImgIds()
    assert {c["name"] for c in coco.loadCats(coco.getCatIds())} == {
        x.key for x in study.spec.fields if x.type == "bbox"}
    return len(coco.getAnnIds())


def file_opened(data: bytes, fmt: str, tables) -> int:
    """A single-file export read by pandas, with the table's columns; its rows."""
    reader = {"csv": pd.read_csv, "parquet": pd.read_parquet,
              "jsonl": lambda b: pd.read_json(b, lines=True)}[fmt]
    frame = reader(io.BytesIO(data))
    assert list(frame.columns) == tables.schema.names, fmt
    return len(frame)


def unzipped(data: bytes, fmt: str, tmp: Path) -> tuple[Path, list[str], str | None]:
    """The archive extracted: the folder its files are in, their names there, and that folder's name
    for a Hugging Face archive (every file under one top folder), else None."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        zf.extractall(tmp / fmt)
        names = zf.namelist()
    root = tmp / fmt
    if fmt != "hf":
        return root, names, None
    (top,) = {n.split("/", 1)[0] for n in names}
    return root / top, [n.split("/", 1)[1] for n in names], top


def hf_opened(root: Path, tmp: Path, tables) -> int:
    """Each config of the dataset card loaded by datasets, with the features the card declares; the rows."""
    text = (root / "README.md").read_text(encoding="utf-8")
    import yaml

    head = yaml.safe_load(text.split("---\n", 2)[1])
    assert "not computed" not in text
    declared = {c["config_name"]: c["features"] for c in head["dataset_info"]}
    rows = 0
    records = croissant_records(root / "croissant.json")  # mlcroissant reads every config the card declares
    assert set(records) == {c["config_name"] for c in head["configs"]}
    for config in head["configs"]:
        loaded = datasets.load_dataset(str(root), config["config_name"], cache_dir=str(tmp / "hf-cache"))
        for split in loaded.values():
            assert split.features._to_yaml_list() == declared[config["config_name"]]
        whole = loaded["train"].num_rows if "train" in loaded else sum(s.num_rows for s in loaded.values())
        assert len(records[config["config_name"]]) == whole, config["config_name"]
        rows += sum(split.num_rows for split in loaded.values())
    assert list(load_split(root, "raw").features) == tables.schema.names
    return rows


def gold_checked(root: Path, names: list[str], study) -> None:
    """Every paper table the protocol's reports declare, and the gold tables where a field has a level."""
    kinds = [spec.kind for spec in study.spec.reports]
    assert {f"paper_{kind}.parquet" for kind in kinds} <= set(names)
    for kind in kinds:
        assert pq.read_schema(root / f"paper_{kind}.parquet").names == list(PAPER_COLUMNS[kind]), kind
        assert list(pd.read_csv(root / f"paper_{kind}.csv").columns) == list(PAPER_COLUMNS[kind]), kind
    if any(x.level or x.type == "per_document" for x in study.spec.fields):
        for table in ("gold_by_country", "gold_by_item"):
            assert pq.read_schema(root / f"{table}.parquet").names == list(GOLD_COLUMNS), table


def rows_in(root: Path, names: list[str]) -> int:
    """The rows of the archive's tables (Parquet, CSV, JSON Lines), an empty file none."""
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
        if fmt == "croissant":  # hf_opened loads the folder's croissant.json; test_croissant.py the file alone
            continue
        job = export_build(job_id=export_start(study=study, user=owner, format=fmt, options={"images": True}).pk)
        assert job.status == ExportJob.Status.DONE, (name, fmt, job.error)
        out = tmp_path / fmt
        out.mkdir()
        assert opened(job, fmt, out, study) > 0, (name, fmt)
    assert Annotator.objects.filter(study=study).exists()
