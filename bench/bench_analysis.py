#!/usr/bin/env python
"""Benchmark the whole analysis (and, with --export, the CSV export) on a synthetic study.

    python bench/bench_analysis.py --ratings 10911        # (a) CulturalFrames size
    python bench/bench_analysis.py --ratings 1000000      # (b) a million ratings

Uses config.settings_test on a temporary SQLite database, or on DATABASE_URL when it is set (the
synthetic study is deleted again afterwards, unless --keep). ``--db PATH`` keeps the SQLite file,
and a later run with the same path and size reuses the study it holds (building a million ratings
takes minutes). Builds a CulturalFrames-like study in bulk: 10 country pools, 3 ratings per image
(about 25 per annotator, as sessions on Prolific), the CulturalFrames rating protocol with its four
declared reports, and an uploaded metric file of two metrics per image, so the run computes
everything a researcher gets: alpha with 1,000 bootstrap resamples for every field, overall, per
pool and per model, the reports, and the metric correlation with the human-human baseline.

The analysis runs in a fresh process (``--analyse STUDY``), so that its peak memory (maximum RSS)
is its own, not the build's; ``--trace`` also reports tracemalloc's peak (slower).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COUNTRIES = ["BR", "CN", "DE", "IN", "JP", "KE", "MX", "NG", "PL", "US"]
PROMPT = "a family sharing a festive meal under lanterns at dusk in the old town square"
WORDS = PROMPT.split(" ")


def setup_django(tmp: str) -> bool:
    """Configure Django; True when the database is our own temporary one."""
    sys.path.insert(0, str(ROOT))
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings_test"
    os.environ.pop("CELERY_BROKER_URL", None)  # time the job bodies in-process, not a queue
    os.environ.setdefault("MEDIA_ROOT", os.path.join(tmp, "media"))
    own_db = not os.environ.get("DATABASE_URL")
    if own_db:
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    return own_db


def answers(rng: random.Random, latent: float) -> dict:
    """A plausible CulturalFrames answer around the image's latent quality (0..1)."""
    def point(x: float) -> float:
        return min((0, 0.5, 1), key=lambda p: abs(p - x))

    alignment = point(latent + rng.gauss(0, 0.3))
    out: dict = {"alignment": alignment}
    if alignment < 1:
        out["error_types"] = rng.sample(["explicit", "implicit"], rng.randint(1, 2))
        picked = sorted(rng.sample(range(len(WORDS)), 2))
        out["words"] = [{"index": i, "start": 0, "end": len(WORDS[i]), "text": WORDS[i]} for i in picked]
        out["explanation"] = "The lanterns and the festive food are missing from the picture."
    out["stereotype"] = "yes" if rng.random() < 0.15 else "no"
    if out["stereotype"] == "yes":
        out["stereotype_description"] = "Everyone wears the same traditional costume."
    out["quality"] = point(0.7 + rng.gauss(0, 0.35))
    out["overall"] = max(1, min(5, round(1 + 4 * latent + rng.gauss(0, 0.8))))
    return out


BATCH_ITEMS = 10_000  # items built per batch: the build's memory stays flat
METRICS = ("clip_score", "vqa_score")


def build_study(n_ratings: int, per_item: int, seed: int):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotation.models import Annotator, Session
    from studies.models import CountryPool
    from studies.services import preset_load, study_create

    rng = random.Random(seed)
    now = timezone.now()
    user, _ = get_user_model().objects.get_or_create(username="bench-analysis")
    study = study_create(
        owner=user, name=study_name(n_ratings, per_item, seed), protocol=preset_load("culturalframes-rating"),
        code_completed="A", code_failed_mock="B", code_not_eligible="C", code_no_consent="D",
    )
    pools = CountryPool.objects.bulk_create(
        [CountryPool(study=study, country=c, country_name=c, annotations_per_item=per_item) for c in COUNTRIES]
    )
    n_items = -(-n_ratings // per_item)
    pool_of = {p.country: p for p in pools}
    per_country = max(20, -(-n_items // len(COUNTRIES)) * per_item // 25)  # ~25 ratings each
    annotators = {
        c: Annotator.objects.bulk_create(
            [
                Annotator(study=study, pool=pool_of[c], prolific_pid=f"{c}{k:022d}", consented_at=now)
                for k in range(per_country)
            ],
            batch_size=2000,
        )
        for c in COUNTRIES
    }
    everyone = [a for group in annotators.values() for a in group]
    sessions = Session.objects.bulk_create(
        [
            Session(annotator=a, prolific_session_id=f"s{a.pk}", prolific_study_id="BENCH", items_target=5)
            for a in everyone
        ],
        batch_size=2000,
    )
    session_of = {a.pk: s for a, s in zip(everyone, sessions, strict=True)}
    latents: list[float] = []
    positions: dict[int, int] = {}
    made = 0
    for first in range(0, n_items, BATCH_ITEMS):
        batch = range(first, min(n_items, first + BATCH_ITEMS))
        made = _build_items(study, batch, n_ratings, made, per_item, pool_of, annotators, session_of, positions,
                            latents, rng, now)
    _upload_metrics(study, user, latents, rng)
    return study, user


def _build_items(
    study, batch, n_ratings, made, per_item, pool_of, annotators, session_of, positions, latents, rng, now
):
    from annotation.models import Annotation, Assignment
    from studies.models import Item, ItemQuota

    items = Item.objects.bulk_create(
        [
            Item(
                study=study, external_id=f"img-{i}", country=COUNTRIES[i % len(COUNTRIES)],
                prompt=PROMPT, model_name=f"model-{i % 4}", category="festival",
                image=f"items/bench/{i}.png", width=512, height=512, sha256=f"{i:064x}",
            )
            for i in batch
        ],
        batch_size=2000,
    )
    quotas, assignments, rows = [], [], []
    for i, item in zip(batch, items, strict=True):
        group = annotators[item.country]
        take = min(per_item, n_ratings - made)
        quotas.append(ItemQuota(item=item, pool=pool_of[item.country], wanted=per_item, done=take))
        latent = rng.random()
        latents.append(latent)
        for r in range(take):
            a = group[(i // len(COUNTRIES) * per_item + r) % len(group)]
            positions[a.pk] = positions.get(a.pk, 0) + 1
            assignments.append(
                Assignment(
                    session=session_of[a.pk], annotator=a, item=item, pool=a.pool, position=positions[a.pk],
                    status=Assignment.Status.SUBMITTED, leased_at=now, expires_at=now + timedelta(minutes=30),
                )
            )
            rows.append((a, item, answers(rng, latent)))
        made += take
    ItemQuota.objects.bulk_create(quotas, batch_size=2000)
    assignments = Assignment.objects.bulk_create(assignments, batch_size=2000)
    Annotation.objects.bulk_create(
        [
            Annotation(
                assignment=asg, study=study, item=item, pool=a.pool, annotator=a, answers=ans,
                protocol_version=1, time_spent_ms=rng.randint(20_000, 120_000), started_at=now,
            )
            for asg, (a, item, ans) in zip(assignments, rows, strict=True)
        ],
        batch_size=2000,
    )
    return made


def _upload_metrics(study, user, latents, rng) -> None:
    """Two automatic metrics per image, noisy functions of the image's latent quality."""
    from analysis.metrics import metric_upload_create

    lines = ["item,metric,score"]
    for i, latent in enumerate(latents):
        lines.append(f"img-{i},{METRICS[0]},{0.2 + 0.15 * latent + rng.gauss(0, 0.05):.4f}")
        lines.append(f"img-{i},{METRICS[1]},{latent + rng.gauss(0, 0.3):.4f}")
    metric_upload_create(study=study, user=user, name="metrics.csv", data="\n".join(lines).encode())


def study_name(n_ratings: int, per_item: int, seed: int) -> str:
    return f"Benchmark {n_ratings} x{per_item} seed {seed}"


def delete_study(study, user) -> None:
    from studies.services import study_delete

    study_delete(study=study)
    user.delete()


def analyse(study_id: int, trace: bool) -> dict:
    """Run the analysis of one study in this process; its time, peak memory and a summary."""
    from analysis.models import AnalysisRun
    from analysis.services import analysis_run
    from studies.models import Study

    study = Study.objects.get(pk=study_id)
    run = AnalysisRun.objects.create(study=study, requested_by=study.owner)
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    run = analysis_run(run_id=run.pk)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] if trace else None
    max_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # before the summary below reads the result
    if run.status != AnalysisRun.Status.DONE:
        raise SystemExit(f"analysis failed: {run.error}")
    result = run.result
    metrics = result.get("metrics") or {}
    return {
        "seconds": seconds,
        "max_rss_mib": max_rss,
        "traced_peak_mib": peak / 2**20 if peak is not None else None,
        "annotations": result["annotations"],
        "units": result["units"],
        "fields": [(f["key"], f["level"], f["overall"]["alpha"]) for f in result["fields"]],
        "reports": [(r["kind"], "error" not in r) for r in result["reports"]],
        "metrics": [(m["metric"], m["coefficients"]["spearman"]["value"]) for m in metrics.get("metrics", [])],
        "raters": metrics.get("raters"),
        "result_json_mib": len(json.dumps(result)) / 2**20,
    }


def timed_export(study, user):
    from exports.services import export_start

    start = time.perf_counter()
    job = export_start(study=study, user=user)  # no broker: the build runs eagerly on commit
    job.refresh_from_db()
    return job, time.perf_counter() - start


def in_fresh_process(study_id: int, db_url: str, trace: bool) -> dict:
    env = {**os.environ, "DATABASE_URL": db_url}
    command = [sys.executable, __file__, "--analyse", str(study_id)] + (["--trace"] if trace else [])
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the analysis process failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--ratings", type=int, default=10_911)
    parser.add_argument("--per-item", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--runs", type=int, default=1, help="analyses to time (each in a fresh process)")
    parser.add_argument("--db", help="SQLite file to keep (and reuse) instead of a temporary one")
    parser.add_argument("--keep", action="store_true", help="keep the synthetic study on DATABASE_URL")
    parser.add_argument("--trace", action="store_true", help="also report tracemalloc's peak (slower)")
    parser.add_argument("--export", action="store_true", help="also time the CSV export")
    parser.add_argument("--analyse", type=int, metavar="STUDY", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.analyse is not None:  # the child process: DATABASE_URL names the database
        with tempfile.TemporaryDirectory(prefix="tessera-bench-") as tmp:
            setup_django(tmp)
            print(json.dumps(analyse(args.analyse, args.trace)))
        return

    with tempfile.TemporaryDirectory(prefix="tessera-bench-") as tmp:
        if args.db:  # the database and the uploaded metric file are kept for the next run
            os.environ["DATABASE_URL"] = f"sqlite:///{os.path.abspath(args.db)}"
            os.environ["MEDIA_ROOT"] = os.path.abspath(args.db) + ".media"
        elif args.keep:
            os.environ["MEDIA_ROOT"] = str(ROOT / "var" / "bench-media")
        own_db = setup_django(tmp)
        from django.db import connection

        from studies.models import Study

        name = study_name(args.ratings, args.per_item, args.seed)
        study = Study.objects.filter(name=name).first() if (args.db or args.keep) else None
        if study is None:
            t0 = time.perf_counter()
            study, _ = build_study(args.ratings, args.per_item, args.seed)
            print(f"built {args.ratings} ratings in {time.perf_counter() - t0:.1f} s")
        else:
            print(f"reusing the study {study.pk} ({name})")
        user = study.owner
        db_url = os.environ["DATABASE_URL"]
        connection.close()
        try:
            for n in range(args.runs):
                out = in_fresh_process(study.pk, db_url, args.trace)
                traced = f", traced peak {out['traced_peak_mib']:.1f} MiB" if out["traced_peak_mib"] is not None else ""
                print(f"run {n + 1}: analysis {out['seconds']:.2f} s, max RSS {out['max_rss_mib']:.0f} MiB" + traced)
            print(f"analysis: {out['annotations']} ratings, {out['units']} units, {len(out['fields'])} fields, "
                  f"{len(COUNTRIES)} pools, {out['raters']} raters; result {out['result_json_mib']:.1f} MiB of JSON")
            for key, level, a in out["fields"]:
                print(f"  {key:<12} {level:<8} alpha={a:.3f}" if a is not None else f"  {key}: undefined")
            print("  reports: " + ", ".join(f"{kind} {'ok' if ok else 'FAILED'}" for kind, ok in out["reports"]))
            print("  metrics: " + ", ".join(f"{m} spearman={v:.3f}" for m, v in out["metrics"]))
            if args.export:
                job, export_seconds = timed_export(study, user)
                print(f"export: {job.rows} rows in {export_seconds:.2f} s ({job.status})")
        finally:
            if not (own_db or args.keep or args.db):
                delete_study(study, user)


if __name__ == "__main__":
    main()
