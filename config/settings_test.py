"""Test settings: the real settings, a throwaway key and a fast password hasher."""

import atexit
import os
import shutil
import tempfile
from pathlib import Path

os.environ.setdefault("SECRET_KEY", "tests-only-not-secret")
os.environ.setdefault("MEDIA_ROOT", tempfile.mkdtemp(prefix="tessera-test-media-"))

from .settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}  # noqa: F405
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
ALLOWED_HOSTS = ["*"]
STATIC_ROOT = tempfile.mkdtemp(prefix="tessera-test-static-")
# The suite logs in a lot (force_login and login): no lockout, except in the tests of the lockout
# itself (tests/test_login_lockout.py turns it on).
AXES_ENABLED = False
# The suite's process keeps its cache in its own memory, whatever the broker: tests/conftest.py clears
# it before each test, and a Redis cache's clear() would empty the broker's database (CI's queue).
# tests/test_settings.py checks the Redis choice in fresh interpreters; tests/deploy/ on real nodes.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "tessera-default"},
          "local": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "tessera-local"}}
# No scheduler thread in the suite (nothing imports config.wsgi, but a test that did would start
# one); tests/test_embedded_scheduler.py turns it on for itself.
TESSERA_EMBEDDED_SCHEDULER = False

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    # A file, as the embedded mode uses (in RAM where the system has /dev/shm), not SQLite's shared
    # in-memory database: there a write beside another connection's read of the same table fails at
    # once ("database table is locked") instead of waiting its turn as WAL and the busy timeout make
    # it, and the platform's own threads (the embedded scheduler's jobs, the live server's pages
    # polling a job) read and write beside the test's thread.
    _ram = Path("/dev/shm")
    _db_dir = tempfile.mkdtemp(prefix="tessera-test-db-", dir=_ram if _ram.is_dir() else None)
    DATABASES["default"]["TEST"] = {"NAME": str(Path(_db_dir) / "test.sqlite3")}  # noqa: F405
    atexit.register(shutil.rmtree, _db_dir, ignore_errors=True)
# An import's image derivatives are made when its transaction commits, in the test's own thread
# (bench/bench_import.py may ask for the background thread: IMAGE_DERIVATIVES_BACKGROUND=1).
IMAGE_DERIVATIVES_BACKGROUND = os.environ.get("IMAGE_DERIVATIVES_BACKGROUND") == "1"
