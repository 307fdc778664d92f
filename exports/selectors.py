"""Reads for the export section: a study's export jobs, their files, and what the panel shows."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.text import slugify

from analysis.fingerprint import Fingerprint, Staleness, data_fingerprint, staleness
from analysis.models import AnalysisRun
from analysis.selectors import analysis_latest_done
from stats.gold import DS_MIN_ITEMS, DS_MIN_RATINGS
from stats.versions import ProtocolSet
from studies.models import Document, Study

from .csv_layout import DocumentInfo
from .formats import ExportFormat, formats_for
from .formats.base import LICENSES
from .models import ExportJob


def export_latest(*, study: Study) -> ExportJob | None:
    return study.export_jobs.select_related("release").order_by("-created_at", "-id").first()


def export_for_study(*, study: Study, pk: int) -> ExportJob:
    return get_object_or_404(study.export_jobs, pk=pk)


def download_name(*, study_name: str, format: str, day: date, suffix: str, folder: str = "") -> str:
    """An export's name on the researcher's disk: a ZIP holding one top folder (the ``hf`` format's)
    is named for that folder, ``<folder>.zip``, so it unpacks to the folder its name says; any other
    file for the study, the format and the day it was made, e.g.
    ``cultural-frames-demo_parquet_2026-11-25.parquet`` (``suffix``: its extension, or ``manifest.json``)."""
    if folder and suffix == "zip":
        return f"{folder}.zip"
    return f"{slugify(study_name) or 'study'}_{format}_{day.isoformat()}{'_' if '.' in suffix else '.'}{suffix}"


def export_file_name(study: Study, job: ExportJob, suffix: str) -> str:
    """A job's download name (``download_name``; the top folder is the one its manifest names)."""
    return download_name(study_name=study.name, format=job.format, day=(job.finished_at or job.created_at).date(),
                         suffix=suffix, folder=str((job.manifest or {}).get("folder") or ""))


def export_file_for_study(*, study: Study, pk: int) -> ExportJob:
    job = export_for_study(study=study, pk=pk)
    if job.status != ExportJob.Status.DONE or not job.file:
        raise Http404("This export has no file.")
    return job


@dataclass
class ExportPanel:
    """What the export section of the analysis page shows."""

    fingerprint: Fingerprint
    analysis: AnalysisRun | None  # the latest finished analysis
    staleness: Staleness | None
    job: ExportJob | None
    documents: bool = False  # the protocol asks questions per document: a second table, in a ZIP
    formats: tuple[ExportFormat, ...] = ()  # those that fit the protocol, in catalog order

    @property
    def options(self) -> set[str]:
        """The options the offered formats read (license, images)."""
        return {o for f in self.formats for o in f.options}

    @property
    def licenses(self) -> tuple[str, ...]:
        return LICENSES

    @property
    def ds_min_items(self) -> int:
        """The items an annotator must have rated to count in a Dawid–Skene label (``stats.gold``)."""
        return DS_MIN_ITEMS

    @property
    def ds_min_ratings(self) -> int:
        """The ratings by such annotators an item needs for a Dawid–Skene label."""
        return DS_MIN_RATINGS

    @property
    def allowed(self) -> bool:
        return self.analysis is not None and self.staleness is not None and self.staleness.current


def export_panel(*, study: Study, fingerprint: Fingerprint | None = None) -> ExportPanel:
    """The export section, against the study's current data (``fingerprint`` when the caller has read it)."""
    now = fingerprint or data_fingerprint(study=study)
    done = analysis_latest_done(study=study)
    return ExportPanel(
        fingerprint=now,
        analysis=done,
        staleness=staleness(done.data_fingerprint, now) if done else None,
        job=export_latest(study=study),
        documents=any(f.kind.container for f in study.spec.fields),
        # the current spec decides what the page offers (no query); the export checks every version
        formats=tuple(formats_for(ProtocolSet(current=study.spec, current_version=study.protocol_version))),
    )


def documents_of_items(*, item_ids: Iterable[int]) -> dict[int, DocumentInfo]:
    """The documents of these items, by id, for the per-document export table."""
    rows = Document.objects.filter(item_id__in=list(item_ids)).values_list("pk", "position", "title", "url")
    return {pk: DocumentInfo(pk, position, title, url) for pk, position, title, url in rows}

