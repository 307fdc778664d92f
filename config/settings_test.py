"""Test settings: the real settings, a throwaway key and a fast password hasher."""

import os
import tempfile

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
# No scheduler thread in the suite (nothing imports config.wsgi, but a test that did would start
# one); tests/test_embedded_scheduler.py turns it on for itself.
TESSERA_EMBEDDED_SCHEDULER = False
