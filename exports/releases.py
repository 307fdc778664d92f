"""The numbered releases of a study's gold data. A release is the data (its fingerprint) as one
analysis run checked it: every export of the same data gated on the same run is of the same release,
whatever its format or options; new data, or a new run on the same data, makes the next number.

``release_for`` takes the release of an export (made the first time, found every other), safe when
two exports of the same new data are written at once: the study's row is locked while the number is
chosen, and the unique constraints (study, number) and (study, data, run) catch what a database
without row locks lets through (a retry then finds the other's release). ``release_facts`` reads
what the data held (the next release's changelog is read against it); ``changes`` is that
changelog, a pure diff of two releases' facts; ``release_info`` is a release as the formats read it
(``formats.base.ReleaseInfo``: the card, Croissant and Parquet's metadata cite it) and
``release_manifest`` as ``manifest.json`` states it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone

from analysis.fingerprint import Fingerprint
from analysis.models import AnalysisRun
from analysis.quality import excluded_annotators
from annotation.models import Annotation
from studies.models import Study

from .formats.base import ReleaseInfo, utc_text
from .formats.card import count_text
from .models import Release

ATTEMPTS = 3  # a release made by another export in between is found on the next attempt


def _grouped(rows: Any, key: str) -> dict[str, int]:
    return {str(k): n for k, n in rows.order_by().values(key).annotate(n=Count("id")).values_list(key, "n")}


def release_facts(*, study: Study, analysis: AnalysisRun, fingerprint: Fingerprint) -> dict[str, Any]:
    """What the data ``fingerprint`` counted held, for the next release's changelog: the annotations
    that count (their number and last id), their annotators, their number per country and per
    protocol version, the excluded annotators (pseudonym and reason), and the run that checked it."""
    counted = Annotation.objects.counted().filter(study=study, id__lte=fingerprint.max_id)
    return {
        "data_fingerprint": fingerprint.text,
        "analysis_run": analysis.pk,
        "count": fingerprint.count,
        "max_id": fingerprint.max_id,
        "annotators": counted.values("annotator_id").distinct().count(),
        "countries": _grouped(counted, "pool__country"),
        "versions": _grouped(counted, "protocol_version"),
        "excluded": [{"pseudonym": e["pseudonym"], "reason": e["reason"]}
                     for e in excluded_annotators(study=study, max_id=fingerprint.max_id)],
    }


def _first(facts: Mapping[str, Any]) -> list[str]:
    countries = facts.get("countries") or {}
    return [f"First release: {count_text(facts.get('count', 0), 'annotation')} by "
            f"{count_text(facts.get('annotators', 0), 'annotator')} in {count_text(len(countries), 'country')}.",
            f"Checked against analysis run {facts.get('analysis_run')}."]


def _people(previous: Mapping[str, Any], facts: Mapping[str, Any]) -> list[str]:
    """The annotators excluded since (with the reason given) and those included again."""
    before = {e["pseudonym"]: e for e in previous.get("excluded") or []}
    now = {e["pseudonym"]: e for e in facts.get("excluded") or []}
    lines = [f"Annotator {name} excluded: {e.get('reason') or 'no reason given'}."
             for name, e in now.items() if name not in before]
    lines += [f"Annotator {name} included again." for name in before if name not in now]
    return lines


def _groups(previous: Mapping[str, Any], facts: Mapping[str, Any]) -> list[str]:
    """The protocol versions and countries whose annotations are new since."""
    versions, countries = previous.get("versions") or {}, previous.get("countries") or {}
    lines = [f"Protocol version {v} new since: {count_text(n, 'annotation')} given under it."
             for v, n in sorted((facts.get("versions") or {}).items(), key=lambda kv: int(kv[0])) if v not in versions]
    lines += [f"Country {c} added: {count_text(n, 'annotation')}."
              for c, n in sorted((facts.get("countries") or {}).items()) if c not in countries]
    return lines


def changes(previous: Mapping[str, Any] | None, facts: Mapping[str, Any], *, added: int = 0,
            previous_number: int | None = None) -> list[str]:
    """What changed from the release whose facts are ``previous`` (None: this is the first) to
    ``facts`` (both ``release_facts``), a sentence each: the annotations added since (``added``:
    those past the previous last id that count, a read the caller makes) and removed since
    (withdrawn, flagged or excluded), the annotators excluded (with the reason) and included
    again, the protocol versions and countries new since, and the same data re-checked by a new
    run. Pure."""
    if previous is None:
        return _first(facts)
    since = f"release {previous_number}" if previous_number else "the previous release"
    if previous.get("data_fingerprint") == facts.get("data_fingerprint"):
        return [f"The same data as {since}, re-checked by analysis run {facts.get('analysis_run')} "
                f"(it was run {previous.get('analysis_run')})."]
    lines = [f"{count_text(added, 'annotation')} added since {since}."] if added else []
    removed = previous.get("count", 0) + added - facts.get("count", 0)
    if removed > 0:
        lines.append(f"{count_text(removed, 'annotation')} removed since {since} (withdrawn, flagged by a checker "
                     "or of an excluded annotator).")
    lines += _people(previous, facts) + _groups(previous, facts)
    if not lines:
        lines.append(f"The same annotations as {since}; their reviews changed.")
    return [*lines, f"Checked against analysis run {facts.get('analysis_run')}."]


def _found(study: Study, analysis: AnalysisRun, fingerprint: Fingerprint) -> Release | None:
    return Release.objects.filter(study=study, data_fingerprint=fingerprint.text, analysis=analysis).first()


def _make(study: Study, analysis: AnalysisRun, fingerprint: Fingerprint, facts: dict[str, Any]) -> Release:
    """The release of this data and run, made under the study row's lock (found if another made it)."""
    with transaction.atomic():
        list(Study.objects.select_for_update().filter(pk=study.pk).values_list("pk", flat=True))
        found = _found(study, analysis, fingerprint)
        if found is not None:
            return found
        last = Release.objects.filter(study=study).order_by("-number").first()
        added = 0
        if last is not None:
            added = Annotation.objects.counted().filter(
                study=study, id__gt=last.facts.get("max_id", 0), id__lte=fingerprint.max_id).count()
        return Release.objects.create(
            study=study, number=(last.number + 1) if last else 1, data_fingerprint=fingerprint.text,
            analysis=analysis, created=timezone.now(), facts=facts,
            changes=changes(last.facts if last else None, facts, added=added,
                            previous_number=last.number if last else None),
        )


def release_for(*, study: Study, analysis: AnalysisRun, fingerprint: Fingerprint) -> Release:
    """The release of ``study``'s data ``fingerprint`` as ``analysis`` checked it: the one already
    made, or the next number (its facts read and its changelog written against the last release)."""
    found = _found(study, analysis, fingerprint)
    if found is not None:
        return found
    facts = release_facts(study=study, analysis=analysis, fingerprint=fingerprint)
    for attempt in range(ATTEMPTS):
        try:
            return _make(study, analysis, fingerprint, facts)
        except IntegrityError:  # another export made this release, or took this number, in between
            if attempt == ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def release_info(release: Release) -> ReleaseInfo:
    """``release`` as the formats read it (``formats.base.ReleaseInfo``)."""
    return ReleaseInfo(
        number=release.number, created=utc_text(release.created), data_fingerprint=release.data_fingerprint,
        analysis_run=release.analysis_id, previous=release.number - 1 if release.number > 1 else None,
        changes=tuple(release.changes or ()),
    )


def release_manifest(info: ReleaseInfo) -> dict[str, Any]:
    """The release as ``manifest.json`` states it (its ``release``)."""
    return {"number": info.number, "version": info.version, "created": info.created,
            "data_fingerprint": info.data_fingerprint, "analysis_run": info.analysis_run,
            "previous": info.previous, "changes": list(info.changes)}
