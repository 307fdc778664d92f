#!/usr/bin/env python
"""Time the export of N annotations in each raw format, and its peak memory.

    python bench/bench_export.py                          # 200,000 annotations, a temporary SQLite database
    python bench/bench_export.py --annotations 1000000 --formats parquet
    DATABASE_URL=postgres://… python bench/bench_export.py --annotations 1000000
    python bench/bench_export.py --annotations 1000000 --keep /tmp/bench-export   # build once, time again

Builds a CulturalFrames rating study (preset culturalframes-rating, two pools) with N submitted
annotations in bulk (N/3 items, 3 annotations each by 999 annotators; answers of every field of the
protocol: a scale, lists of choices, highlighted words, texts), a quarter of them reviewed
(accepted), and records an analysis of that data (a finished run with its fingerprint: the export's
gate, without timing the analysis itself). Then, for each format, a fresh process runs the export
job's code path: ``export_start`` (the gate; with no broker the job runs in-process at once, as
the page's does) and ``export_build`` (the Celery task's body): read in chunks, written by the
format's writer, stored by the configured storage (a temporary MEDIA_ROOT). Each child prints its
wall time, its maximum RSS (``resource.getrusage``: the peak of the process, Django loaded) and
its RSS before the export, its CPU time (user and system: what the export costs whatever else the
machine runs), the file's size and the job's rows. Uses config.settings_test on a
temporary SQLite database, or on DATABASE_URL when it is set (the study is deleted afterwards).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BATCH = 20_000  # items built per batch: the build's memory stays flat
N_ANNOTATORS = 999
PROMPT = "a family sharing a festive meal under lanterns at dusk in the old town square"
WORDS = [{"index": 1, "start": 2, "end": 8, "text": "family"}, {"index": 5, "start": 32, "end": 40, "text": "lanterns"}]


def setup_django(tmp: str, migrate: bool) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings_test"
    os.environ.pop("CELERY_BROKER_URL", None)  # the job runs in-process, as with no broker
    os.environ["MEDIA_ROOT"] = os.path.join(tmp, "media")
    if not os.environ.get("DATABASE_URL"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
    import django

    django.setup()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)


def answers(k: int) -> dict:
    if k % 3 == 0:
        return {"alignment": 1, "stereotype": "no", "quality": 1, "overall": 5}
    return {
        "alignment": 0.5 if k % 3 == 1 else 0, "error_types": ["explicit", "implicit"][: 1 + k % 2], "words": WORDS,
        "explanation": f"The lanterns are missing from picture {k}.", "stereotype": "yes" if k % 7 == 0 else "no",
        **({"stereotype_description": "Everyone wears the same hat."} if k % 7 == 0 else {}),
        "quality": 0.5, "overall": 1 + k % 5,
    }


def build(n: int):
    """The study with ``n`` annotations, and a finished analysis of them."""
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.utils import timezone

    from analysis.fingerprint import data_fingerprint
    from analysis.models import AnalysisRun
    from annotation.models import Annotation, Annotator, Assignment, Review, Session
    from studies.models import CountryPool, Item
    from studies.services import preset_load, study_create

    t0 = time.perf_counter()
    user, _ = get_user_model().objects.get_or_create(username=f"bench-export-{os.getpid()}")
    study = study_create(
        owner=user, name=f"Export benchmark {n}", protocol=preset_load("culturalframes-rating"), status="open",
        code_completed="A", code_failed_mock="B", code_not_eligible="C", code_no_consent="D",
    )
    pools = [CountryPool.objects.create(study=study, country=c, country_name=name, annotations_per_item=3)
             for c, name in (("IN", "India"), ("JP", "Japan"))]
    now = timezone.now()
    annotators = Annotator.objects.bulk_create(
        [Annotator(study=study, pool=pools[k % 2], prolific_pid=f"E{k:023d}", consented_at=now)
         for k in range(N_ANNOTATORS)], batch_size=5000)
    sessions = Session.objects.bulk_create(
        [Session(annotator=a, prolific_session_id="s0", prolific_study_id="BENCH", items_target=5, completed_at=now)
         for a in annotators], batch_size=5000)
    taken = [0] * N_ANNOTATORS
    n_items = -(-n // 3)
    for first in range(0, n_items, BATCH):
        batch = range(first, min(n_items, first + BATCH))
        with transaction.atomic():
            items = Item.objects.bulk_create(
                [Item(study=study, external_id=f"img-{i:07d}", country="IN" if i % 2 else "JP", prompt=PROMPT,
                      model_name=f"model-{i % 4}", category="festival") for i in batch], batch_size=5000)
            rows = []
            for i, item in zip(batch, items, strict=True):
                for r in range(min(3, n - 3 * i)):
                    a = (3 * i + r) % N_ANNOTATORS  # an item's 3 annotations by 3 different annotators
                    taken[a] += 1
                    rows.append((a, item.pk, taken[a]))
            assignments = Assignment.objects.bulk_create(
                [Assignment(session=sessions[a], annotator=annotators[a], item_id=i, pool=annotators[a].pool,
                            position=p, status="submitted", leased_at=now, expires_at=now + timedelta(minutes=30))
                 for a, i, p in rows], batch_size=5000)
            made = Annotation.objects.bulk_create(
                [Annotation(assignment_id=asg.pk, study=study, item_id=asg.item_id, pool_id=asg.pool_id,
                            annotator_id=asg.annotator_id, answers=answers(asg.pk), protocol_version=1,
                            time_spent_ms=20_000 + asg.pk % 40_000, started_at=now) for asg in assignments],
                batch_size=5000)
            Review.objects.bulk_create(
                [Review(annotation=a, reviewer=user, outcome="accepted") for a in made if a.pk % 4 == 0],
                batch_size=5000)
        print(f"  built {min(n, 3 * batch[-1] + 3):,} of {n:,} annotations", end="\r", flush=True)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    AnalysisRun.objects.create(
        study=study, requested_by=user, status=AnalysisRun.Status.DONE,
        data_fingerprint=data_fingerprint(study=study).text, finished_at=timezone.now(),
    )
    print(f"\nbuilt {n:,} annotations in {time.perf_counter() - t0:.0f} s ({connection.vendor})")
    return study, user


def kept_study(n: int):
    """The study of ``n`` annotations a previous ``--keep`` run built, or None."""
    from studies.models import Study

    study = Study.objects.filter(name=f"Export benchmark {n}").select_related("owner").first()
    if study is not None:
        print(f"reusing the study of {n:,} annotations built earlier")
        return study, study.owner
    return None


def run_one(study_id: int, fmt: str) -> dict:
    """One export in this process (a child): its wall time, peak RSS and file."""
    from django.core.files.storage import default_storage

    from exports.services import export_build, export_start
    from studies.models import Study

    study = Study.objects.get(pk=study_id)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    before, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    start = time.perf_counter()
    job = export_start(study=study, user=None, format=fmt)  # with no broker, the job runs here at once
    job = export_build(job_id=job.pk)
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    peak, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime - cpu  # KiB on Linux; CPU seconds
    if job.status != job.Status.DONE:
        raise SystemExit(f"the export failed: {job.error}")
    return {"format": fmt, "seconds": seconds, "cpu_seconds": cpu, "rows": job.rows, "rss_mib": peak / 1024,
            "rss_before_mib": before / 1024, "bytes": default_storage.size(job.file.name)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--annotations", type=int, default=200_000)
    parser.add_argument("--formats", nargs="+", default=["parquet", "csv", "jsonl"])
    parser.add_argument("--keep", metavar="DIR", help="build the study once (SQLite: in DIR; PostgreSQL: in "
                        "DATABASE_URL's database) and reuse it on the next runs: for timing changes side by side "
                        "without rebuilding")
    parser.add_argument("--child", nargs=3, metavar=("TMP", "STUDY", "FORMAT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        tmp, study_id, fmt = args.child
        setup_django(tmp, migrate=False)
        print(json.dumps(run_one(int(study_id), fmt)))
        return

    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tessera-bench-export-") as scratch:
        tmp = args.keep or scratch
        setup_django(tmp, migrate=True)
        from django.db import connection

        kept = kept_study(args.annotations) if args.keep else None
        study, user = kept or build(args.annotations)
        connection.close()  # the children open their own
        try:
            for fmt in args.formats:
                child = subprocess.run(
                    [sys.executable, __file__, "--child", tmp, str(study.pk), fmt],
                    capture_output=True, text=True, env=os.environ.copy(), check=False,
                )
                if child.returncode:
                    sys.exit(f"{fmt}: the export failed:\n{child.stderr[-3000:]}")
                r = json.loads(child.stdout.strip().splitlines()[-1])
                print(f"{fmt:8} {r['rows']:>10,} annotations in {r['seconds']:6.1f} s "
                      f"({r['rows'] / r['seconds']:>9,.0f}/s; CPU {r['cpu_seconds']:5.1f} s); "
                      f"peak RSS {r['rss_mib']:5.0f} MiB "
                      f"(before the export {r['rss_before_mib']:.0f} MiB); file {r['bytes'] / 2**20:.1f} MiB")
            print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        finally:
            if not args.keep:
                from studies.services import study_delete

                study_delete(study=study)
                user.delete()


if __name__ == "__main__":
    main()
