"""What the benchmarks that serve pages share: this process's Django set up as production runs it
(DEBUG off, WhiteNoise, a throwaway key and folders), the database migrated and the static files
collected, so that the gunicorn the benchmark starts with the same environment serves them."""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def production_django(tmp: str, *, database_url: str, **extra: str) -> dict:
    """Set up Django in this process with production settings under ``tmp``; returns the
    environment for the server (the same settings)."""
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1", "SESSION_COOKIE_SECURE": "0", "CSRF_COOKIE_SECURE": "0",
        "TESSERA_VAR_DIR": f"{tmp}/var", "MEDIA_ROOT": f"{tmp}/media", "LOG_LEVEL": "WARNING",
        "DATABASE_URL": database_url, **extra,
    }
    os.environ.update(env)
    os.environ.pop("CELERY_BROKER_URL", None)
    sys.path.insert(0, str(ROOT))
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    call_command("collectstatic", verbosity=0, interactive=False)  # into $TESSERA_VAR_DIR/static
    return {k: v for k, v in os.environ.items() if k != "CELERY_BROKER_URL"}
