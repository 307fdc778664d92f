#!/usr/bin/env python
"""Benchmark the agreement analysis (and, with --export, the CSV export) on a synthetic study.

    python bench/bench_analysis.py --ratings 10911

Uses config.settings_test on a temporary SQLite database, or on DATABASE_URL when it is set
(the synthetic study is deleted again afterwards). Builds a CulturalFrames-like study in bulk:
10 country pools, 3 ratings per image, at least 20 annotators per country; then times
``analysis_run`` and reports its peak memory (tracemalloc, on a second run, since tracing slows it).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
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


def build_study(n_ratings: int, per_item: int, seed: int):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotation.models import Annotation, Annotator, Assignment, Session
    from studies.models import CountryPool, Item, ItemQuota
    from studies.services import preset_load, study_create

    rng = random.Random(seed)
    now = timezone.now()
    user, _ = get_user_model().objects.get_or_create(username="bench-analysis")
    study = study_create(
        owner=user, name="Benchmark", protocol=preset_load("culturalframes-rating"),
        code_completed="A", code_failed_mock="B", code_not_eligible="C", code_no_consent="D",
    )
    pools = CountryPool.objects.bulk_create(
        [CountryPool(study=study, country=c, country_name=c, annotations_per_item=per_item) for c in COUNTRIES]
    )
    n_items = -(-n_ratings // per_item)
    items = Item.objects.bulk_create(
        [
            Item(
                study=study, external_id=f"img-{i}", country=COUNTRIES[i % len(COUNTRIES)],
                prompt=PROMPT, model_name=f"model-{i % 4}", category="festival",
                image=f"items/bench/{i}.png", width=512, height=512, sha256=f"{i:064x}",
            )
            for i in range(n_items)
        ],
        batch_size=2000,
    )
    pool_of = {p.country: p for p in pools}
    per_country = max(20, -(-n_items // len(COUNTRIES)) * per_item // 25)  # ~25 ratings each
    annotators = {
        c: Annotator.objects.bulk_create(
            [Annotator(study=study, pool=pool_of[c], prolific_pid=f"{c}{k:022d}", consented_at=now) for k in range(per_country)]
        )
        for c in COUNTRIES
    }
    sessions = {
        a.pk: s
        for a, s in zip(
            [a for group in annotators.values() for a in group],
            Session.objects.bulk_create(
                [
                    Session(annotator=a, prolific_session_id=f"s{a.pk}", prolific_study_id="BENCH", items_target=5)
                    for group in annotators.values()
                    for a in group
                ]
            ),
            strict=True,
        )
    }
    quotas, assignments, rows = [], [], []
    positions: dict[int, int] = {}
    made = 0
    for i, item in enumerate(items):
        group = annotators[item.country]
        take = min(per_item, n_ratings - made)
        quotas.append(ItemQuota(item=item, pool=pool_of[item.country], wanted=per_item, done=take))
        latent = rng.random()
        for r in range(take):
            a = group[(i // len(COUNTRIES) * per_item + r) % len(group)]
            positions[a.pk] = positions.get(a.pk, 0) + 1
            assignments.append(
                Assignment(
                    session=sessions[a.pk], annotator=a, item=item, pool=a.pool, position=positions[a.pk],
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
    return study, user


def delete_study(study, user) -> None:
    from studies.services import study_delete

    study_delete(study=study)
    user.delete()


def timed_run(study, user, *, trace: bool):
    from exports.models import AnalysisRun
    from exports.services import analysis_run

    run = AnalysisRun.objects.create(study=study, requested_by=user)
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    run = analysis_run(run_id=run.pk)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] if trace else 0
    if trace:
        tracemalloc.stop()
    if run.status != AnalysisRun.Status.DONE:
        raise SystemExit(f"analysis failed: {run.error}")
    return run, seconds, peak


def timed_export(study, user):
    from exports.services import export_start

    start = time.perf_counter()
    job = export_start(study=study, user=user)  # no broker: the build runs eagerly on commit
    job.refresh_from_db()
    return job, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--ratings", type=int, default=10_911)
    parser.add_argument("--per-item", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--export", action="store_true", help="also time the CSV export")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="tessera-bench-") as tmp:
        own_db = setup_django(tmp)
        t0 = time.perf_counter()
        study, user = build_study(args.ratings, args.per_item, args.seed)
        print(f"built {args.ratings} ratings in {time.perf_counter() - t0:.1f} s")
        try:
            run, seconds, _ = timed_run(study, user, trace=False)
            _, _, peak = timed_run(study, user, trace=True)
            result = run.result
            print(f"analysis: {result['annotations']} ratings, {result['units']} units, {len(result['fields'])} fields, {len(COUNTRIES)} pools")
            print(f"analysis seconds: {seconds:.2f}")
            print(f"analysis peak traced memory: {peak / 2**20:.1f} MiB")
            for f in result["fields"]:
                a = f["overall"]["alpha"]
                print(f"  {f['key']:<12} {f['level']:<8} alpha={a:.3f}" if a is not None else f"  {f['key']}: {f['overall']['reason']}")
            if args.export:
                job, export_seconds = timed_export(study, user)
                print(f"export: {job.rows} rows in {export_seconds:.2f} s ({job.status})")
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            print(f"process max RSS (whole script): {rss / 1024:.0f} MiB")
        finally:
            if not own_db:
                delete_study(study, user)


if __name__ == "__main__":
    main()
