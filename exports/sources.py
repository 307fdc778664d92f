"""What a study-level export format reads beside the streamed annotations (``formats.base.StudySource``),
made once per export from the data its analysis saw: the gold labels (``stats.gold.study_gold`` over
the analysis's own column read, ``analysis.reader.annotation_columns``, with the item quotas and
candidates of ``analysis.reports.gold_context``), the items' images, and the datasheet's facts.

Whose annotations count is the export's rule, as the analysis's: none flagged by a checker, none
withdrawn (``Annotation.objects.counted()``); an annotator whose every annotation was flagged is
absent from every table.

The pay rate comes from the recruitment app through ``annotation.extensions.recruitment_facts``:
exports sits beside recruitment in the layers and may not import it, so recruitment registers a
reader in its ``ready()`` (as it does its entry check).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import pandas as pd
from django.db.models import Count, Max, Min

from analysis.fingerprint import Fingerprint
from analysis.models import AnalysisRun
from analysis.quality import excluded_annotators
from analysis.reader import annotation_columns, item_names, protocol_set
from analysis.reports import gold_context
from annotation.extensions import recruitment_facts
from annotation.models import Annotation, Annotator, Upload, pseudonym_for
from stats.agreement.differences import REST, holds
from stats.gold import gold_keys, study_gold
from studies.files import stored_chunks
from studies.models import CheckKind, Document, Item, MockQuestion, Study, panel_label, panel_of
from studies.protocol import Protocol

from .comparisons import file_reader, image_preferences, image_rankings, item_images
from .formats.base import ExportOptions, ItemImage, StudySource, utc_text
from .formats.gold import RANKING_COLUMNS

ELIGIBILITY = (
    ("require_born", "born in the country"),
    ("require_nationality", "holds its nationality"),
    ("require_childhood", "spent most of their first 18 years there"),
    ("require_resident", "lives there now"),
)


def _items(study: Study) -> dict[int, ItemImage]:
    rows = Item.objects.filter(study=study).values_list(
        "pk", "external_id", "image", "width", "height", "sha256", "prompt", "country", "model_name")
    return {
        pk: ItemImage(name, image or "", width, height, sha or "", prompt or "", country or "", model or "")
        for pk, name, image, width, height, sha, prompt, country, model in rows.iterator(chunk_size=20_000)
    }


def _image_reader(study: Study):
    def read(pk: int) -> Iterator[bytes]:
        item = Item.objects.filter(study=study, pk=pk).only("image").first()
        if item is not None and item.image:
            yield from stored_chunks(item.image)

    return read


def _uploads(study: Study) -> dict[str, str]:
    """The stored suffix of each image the study's annotators uploaded, by sha256."""
    rows = Upload.objects.filter(study=study).values_list("sha256", "suffix")
    return dict(rows.iterator(chunk_size=20_000))


def _upload_reader(study: Study):
    def read(sha256: str) -> Iterator[bytes]:
        upload = Upload.objects.filter(study=study, sha256=sha256).exclude(file="").only("file").first()
        if upload is not None:
            yield from stored_chunks(upload.file)

    return read


def _pools(study: Study, max_id: int) -> list[dict[str, Any]]:
    out = []
    for pool in study.pools.select_related("panel").order_by("country"):
        counted = Annotation.objects.counted().filter(pool=pool, id__lte=max_id)
        panel = panel_of(pool)
        out.append({
            "country": pool.country, "country_name": pool.country_name,
            "panel": panel_label(pool),
            "panel_verified": panel is None or panel.verification == "signed",
            "annotators": counted.values("annotator_id").distinct().count(), "annotations": counted.count(),
            "annotations_per_item": pool.annotations_per_item,
            "min_distinct_annotators": pool.min_distinct_annotators,
            "eligibility": [text for attr, text in ELIGIBILITY if getattr(pool, attr)],
        })
    return out


def _questions(protocol: Protocol) -> list[dict[str, Any]]:
    def question(f) -> dict[str, Any]:
        return {
            "key": f.key, "type": f.type, "label": f.label, "help": f.help or "", "level": f.level or "",
            "choices": [c.label for c in f.choices], "fields": [question(s) for s in f.fields],
        }

    return [question(f) for f in protocol.fields]


def _versions(study: Study, max_id: int) -> list[dict[str, Any]]:
    """The current protocol version, then each older one that counted annotations were given under
    (newest first): its annotations and its questions; ``kept`` False for a version whose spec was
    not kept (its answers were read with the current one)."""
    counts = dict(
        Annotation.objects.counted().filter(study=study, id__lte=max_id).order_by()
        .values("protocol_version").annotate(n=Count("id")).values_list("protocol_version", "n")
    )
    protocols = protocol_set(study=study, present=counts)
    current = protocols.current_version
    older = sorted((v for v in counts if v != current), reverse=True)
    return [
        {"version": v, "current": v == current, "annotations": counts.get(v, 0),
         "kept": v not in protocols.fallback, "questions": _questions(protocols.for_version(v))}
        for v in (current, *older)
    ]


def _coefficients(figures: dict[str, Any]) -> dict[str, Any]:
    """One group's agreement as a dataset card states it: alpha, Gwet's AC1/AC2, ICC(1) for numbers,
    the units, and why the data are too thin to read (empty when they are not)."""
    ac, icc = figures.get("ac") or {}, figures.get("icc") or {}
    return {"alpha": figures.get("alpha"), "ac": ac.get("value"), "icc1": icc.get("icc1"),
            "n_units": figures.get("n_units"), "thin": figures.get("thin") or ""}


def _differences(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The differences between countries that hold after Holm's correction (``differences.holds``), by
    country code."""
    country = {p.get("pool_id"): p.get("country") for p in entry.get("pools", [])}
    found = entry.get("differences") or {}
    return [
        {"a": country.get(d["a"]), "b": "the others" if d["b"] == REST else country.get(d["b"]),
         "statistic": d["statistic"], "difference": d["difference"], "ci_low": d.get("ci_low"),
         "ci_high": d.get("ci_high"), "p_holm": d["p_holm"]}
        for d in [*found.get("pairs", []), *found.get("vs_rest", [])]
        if holds(d)
    ]


def _field_agreement(entry: dict[str, Any], key: str) -> dict[str, Any]:
    overall = entry.get("overall") or {}
    return {
        "key": key, "label": entry.get("label"), "level": entry.get("level"),
        "ac_name": (overall.get("ac") or {}).get("name") or "", **_coefficients(overall),
        "countries": [{"country": p.get("country"), **_coefficients(p)} for p in entry.get("pools", [])],
        "differences": _differences(entry),
    }


def _agreement(result: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Each field's agreement (Krippendorff's alpha, Gwet's AC1/AC2, ICC(1) for numbers) overall and
    per country, as the analysis run stored it: the top-level fields (an item within a pool the unit),
    then each sub-field of a per_document field (``container.sub``; an (item, document) pair within
    a pool the unit)."""
    result = result or {}
    out = [_field_agreement(entry, entry.get("key")) for entry in result.get("fields", [])]
    for container in result.get("documents", []):
        out += [_field_agreement(sub, f"{container.get('key')}.{sub.get('key')}")
                for sub in container.get("fields", [])]
    return out


def model_rankings(result: dict[str, Any] | None) -> pd.DataFrame:
    """The models ranked per comparison field and country ("all": every pool together), as the
    analysis run stored them (its ``comparisons``): one row per (field, country, model)."""
    rows = []
    for entry in (result or {}).get("comparisons") or []:
        groups = [("all", entry.get("overall") or {})]
        groups += [(p.get("country") or "", p) for p in entry.get("pools") or []]
        for country, fit in groups:
            for model, t in (fit.get("things") or {}).items():
                rows.append({"field": entry.get("key"), "design": entry.get("design"), "country": country,
                             "model": model, "answers": fit.get("answers"),
                             **{c: t.get(c) for c in RANKING_COLUMNS if c in t}})
    return pd.DataFrame(rows, columns=list(RANKING_COLUMNS))


def _screening(study: Study) -> dict[str, Any]:
    """How annotators were checked within a session (the protocol's ``quality``): attention checks
    (where, how many, how many check items the researcher wrote), gold items (their share and
    number), the speed flag and what failed checks led to; a part turned off is ``on`` False."""
    q = study.spec.quality
    kinds = dict(Item.objects.filter(study=study).exclude(check_kind=CheckKind.NONE).order_by()
                 .values("check_kind").annotate(n=Count("id")).values_list("check_kind", "n"))
    return {
        "attention": {"on": q.attention.on, "placement": q.attention.placement, "count": q.attention.count,
                      "every": q.attention.every, "items": kinds.get(CheckKind.ATTENTION, 0)},
        "gold": {"on": q.gold.on, "rate": q.gold.rate, "items": kinds.get(CheckKind.GOLD, 0)},
        "speed": {"on": q.speed.on, "min_seconds": q.speed.min_seconds, "median_share": q.speed.median_share},
        "outcomes": {"warnings": q.outcomes.warnings, "failures": q.outcomes.failures},
    }


def _languages(study: Study) -> list[str]:
    """The languages the study's texts were shown in (its own, its translations', its pools'), as
    ISO 639-1 codes (a regional subtag dropped)."""
    codes = {study.language, *(study.translations or {}), *study.pools.exclude(language="").values_list(
        "language", flat=True)}
    return sorted({str(c).split("-")[0].lower() for c in codes if c})


def _tasks(study: Study) -> list[str]:
    """The Hub's task categories the study's data serves: generated images judged against their prompts
    (``text-to-image``), images asked about without a prompt (``visual-question-answering``), boxes
    drawn (``object-detection``), documents judged for an item (``text-retrieval``), texts alone
    (``text-classification``)."""
    items = Item.objects.ordinary().filter(study=study)
    images = items.exclude(image="").exists() or items.filter(images__isnull=False).exists()
    tasks = []
    if images:
        tasks.append("text-to-image" if items.exclude(prompt="").exists() else "visual-question-answering")
    if any(f.kind.draws_boxes for f in study.spec.fields):
        tasks.append("object-detection")
    if Document.objects.filter(item__study=study).exists():
        tasks.append("text-retrieval")
    return tasks or ["text-classification"]


def _collected(study: Study, max_id: int) -> dict[str, str]:
    """When the counted annotations were given: the first and last (UTC, ISO 8601; empty: none)."""
    span = Annotation.objects.counted().filter(study=study, id__lte=max_id).aggregate(
        first=Min("submitted_at"), last=Max("submitted_at"))
    return {k: utc_text(v) if v else "" for k, v in span.items()}


def datasheet(*, study: Study, analysis: AnalysisRun, fingerprint: Fingerprint) -> dict[str, Any]:
    """The facts a dataset card (and ``croissant.json``) states: who was asked and how, how they
    were screened, the questions, the agreement, the languages and when the answers were given."""
    questions = MockQuestion.objects.filter(study=study)
    return {
        "study": study.name,
        "analysis_run": analysis.pk,
        "annotations": fingerprint.count,
        "annotators": Annotation.objects.counted().filter(study=study, id__lte=fingerprint.max_id)
        .values("annotator_id").distinct().count(),
        "pools": _pools(study, fingerprint.max_id),
        "items_per_session": study.items_per_session,
        "practice": {"questions": questions.count(), "attempts": study.mock_attempts_allowed},
        "recruitment": recruitment_facts(study.pk),
        "questions": _questions(study.spec),
        "versions": _versions(study, fingerprint.max_id),
        "agreement": _agreement(analysis.result),
        "excluded": [
            {k: e[k] for k in ("pseudonym", "reason", "annotations")}
            for e in excluded_annotators(study=study, max_id=fingerprint.max_id)
        ],
        "screening": _screening(study),
        "languages": _languages(study),
        "tasks": _tasks(study),
        "collected": _collected(study, fingerprint.max_id),
    }


def study_source(*, study: Study, analysis: AnalysisRun, fingerprint: Fingerprint,
                 options: ExportOptions, pulse: Callable[[], None] = lambda: None) -> StudySource:
    """The ``StudySource`` of an export of ``study`` gated on ``analysis`` (``fingerprint``: the data
    it saw). ``pulse()``, the job's heartbeat, is called per chunk read and per gold field and table
    (and handed to the writer, which calls it per table and image); it raises to stop."""
    max_id = fingerprint.max_id
    protocols = protocol_set(study=study, max_id=max_id)
    country_of = dict(study.pools.values_list("pk", "country"))
    columns = annotation_columns(study=study, max_id=max_id, keys=gold_keys(protocols), on_chunk=lambda _: pulse())
    gold = study_gold(columns, protocols, country_of=country_of, item_names=item_names(study=study),
                      context=gold_context(study=study, protocols=protocols, country_of=country_of), on_step=pulse)
    names = {pk: pseudonym_for(public) for pk, public in Annotator.objects.filter(study=study).values_list(
        "pk", "public_id").iterator(chunk_size=10_000)}
    images = item_images(study)
    compared = {"protocol": protocols.current, "columns": columns, "country_of": country_of, "images": images}
    gold = replace(gold, annotators=gold.annotators.assign(
        annotator=[names.get(a, str(a)) for a in gold.annotators["annotator"].tolist()]))
    return StudySource(
        gold=gold, items=_items(study), datasheet=datasheet(study=study, analysis=analysis, fingerprint=fingerprint),
        rankings=model_rankings(analysis.result), item_images=images,
        preferences=image_preferences(**compared), image_rankings=image_rankings(**compared),
        read_file=file_reader(study),
        options=options, read_image=_image_reader(study), uploads=_uploads(study), read_upload=_upload_reader(study),
        pulse=pulse,
    )
