#!/usr/bin/env python
"""Time an import of items with images through the browser's import job.

    python bench/bench_import.py                     # 10,000 items, a temporary SQLite database
    DATABASE_URL=postgres://… python bench/bench_import.py --items 10000
    python bench/bench_import.py --tracemalloc       # also the peak of Python allocations (slower)

Draws N small images (alternately JPEG and PNG, 32×24, each one different), zips them, writes a
CSV of N rows over two country pools, then runs the import job's code path: ``import_start``
stores the uploads as the page does, ``import_run`` (the Celery task's body) streams them to local
files and calls ``items_import``, the function ``manage.py import_items`` calls. Prints the
seconds of the job, the process's maximum RSS (``resource.getrusage``) and, with --tracemalloc,
the peak of Python allocations during the job. Uses config.settings_test on a temporary SQLite
database, or on DATABASE_URL when it is set (the study is deleted afterwards).
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import resource
import sys
import tempfile
import time
import tracemalloc
import zipfile
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent


def setup_django(tmp: str) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings_test"
    os.environ.pop("CELERY_BROKER_URL", None)  # time the job body in-process, not a queue
    os.environ["MEDIA_ROOT"] = os.path.join(tmp, "media")
    if not os.environ.get("DATABASE_URL"):
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/bench.sqlite3"
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)


def image(n: int) -> tuple[str, bytes]:
    """A small image of its own (the bits of n as black and white 4×4 blocks), JPEG for odd n."""
    im = Image.new("RGB", (32, 24), (40, 90, 160))
    for bit in range(24):
        if n >> bit & 1:
            x, y = bit % 8 * 4, bit // 8 * 4
            im.paste((255, 255, 255), (x, y, x + 4, y + 4))
    buf = io.BytesIO()
    kind, suffix = ("JPEG", "jpg") if n % 2 else ("PNG", "png")
    im.save(buf, format=kind, quality=90)
    return f"img/{n:06d}.{suffix}", buf.getvalue()


def build_files(tmp: Path, n: int) -> tuple[Path, Path]:
    rows_path, zip_path = tmp / "items.csv", tmp / "images.zip"
    with rows_path.open("w", newline="") as fh, zipfile.ZipFile(zip_path, "w") as zf:
        writer = csv.writer(fh)
        writer.writerow(["id", "prompt", "image", "country", "model", "category"])
        for i in range(n):
            name, data = image(i)
            zf.writestr(name, data)
            writer.writerow([f"item-{i}", f"A prompt about scene {i}", name, "IN" if i % 2 else "JP",
                             f"model-{i % 3}", f"category-{i % 5}"])
    return rows_path, zip_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--tracemalloc", action="store_true", help="trace Python allocations (slows the job)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="tessera-bench-import-") as tmp_name:
        tmp = Path(tmp_name)
        setup_django(tmp_name)
        from django.core.files.uploadedfile import UploadedFile
        from django.db import connection

        from studies.importing.job import import_run, import_start
        from studies.models import CountryPool
        from studies.services import researcher_create, study_create_from_preset

        start = time.perf_counter()
        rows_path, zip_path = build_files(tmp, args.items)
        print(f"built {args.items:,} rows and images: {rows_path.stat().st_size / 2**20:.1f} MiB CSV, "
              f"{zip_path.stat().st_size / 2**20:.1f} MiB zip in {time.perf_counter() - start:.1f} s")

        owner = researcher_create(username=f"bench-import-{os.getpid()}", password="bench-import-password-1")
        study = study_create_from_preset(owner=owner, preset="culturalframes-rating", name="Import benchmark")
        for country, name in (("IN", "India"), ("JP", "Japan")):
            CountryPool.objects.create(study=study, country=country, country_name=name)
        try:
            rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            if args.tracemalloc:
                tracemalloc.start()
            start = time.perf_counter()
            with rows_path.open("rb") as rows, zip_path.open("rb") as images:
                job = import_start(
                    study=study, user=owner,
                    rows=UploadedFile(rows, name="items.csv", size=rows_path.stat().st_size),
                    images=UploadedFile(images, name="images.zip", size=zip_path.stat().st_size),
                )
            job = import_run(job_id=job.pk)
            seconds = time.perf_counter() - start
            peak = tracemalloc.get_traced_memory()[1] if args.tracemalloc else None
            tracemalloc.stop()
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
            if job.status != job.Status.DONE:
                sys.exit(f"the import failed: {job.error} {job.problems[:5]}")
            print(f"{connection.vendor}: {job.summary}")
            print(f"import job: {seconds:.1f} s ({args.items / seconds:,.0f} items/s); max RSS {rss / 1024:.0f} MiB "
                  f"(before the job: {rss_before / 1024:.0f} MiB)"
                  + (f"; Python allocations peak {peak / 2**20:.1f} MiB" if peak is not None else ""))
        finally:
            study.delete()
            owner.delete()


if __name__ == "__main__":
    main()
