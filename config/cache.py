"""The cache's backend and where it is. ``cache_settings`` reads the environment: ``CACHE_URL``
(redis://, rediss:// or locmem://), else the broker's Redis when ``CELERY_BROKER_URL`` is a redis://
address (several web nodes then share the API's throttle counts and every cached answer), else each
process's own memory; ``"local"`` is always a process's own memory (hot-path values safe to lose).

The Redis backend is ``config.redis_cache.RedisCache``: Django's own, where an unreachable Redis is a
miss, never an error (each call waits at most ``SOCKET_TIMEOUT``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

LOCMEM = "django.core.cache.backends.locmem.LocMemCache"
REDIS = "config.redis_cache.RedisCache"
KEY_PREFIX = "tessera"
# A Redis that does not answer costs a request at most this long per cache call, then is a miss.
SOCKET_TIMEOUT = 1.0


def cache_settings(cache_url: str, broker_url: str, *, key_prefix: str = KEY_PREFIX) -> dict[str, dict[str, Any]]:
    """``CACHES`` for these addresses; a ``CACHE_URL`` of another scheme is refused."""
    local = {"BACKEND": LOCMEM, "LOCATION": "tessera-local"}
    url = cache_url or (broker_url if urlsplit(broker_url).scheme == "redis" else "")
    scheme = urlsplit(url).scheme
    if cache_url and scheme not in ("redis", "rediss", "locmem"):
        raise ImproperlyConfigured(
            f"CACHE_URL must be a redis://, rediss:// or locmem:// address; got {cache_url.split('@')[-1]!r}"
        )
    if scheme in ("redis", "rediss"):
        default = {
            "BACKEND": REDIS, "LOCATION": url, "KEY_PREFIX": key_prefix,
            "OPTIONS": {"socket_connect_timeout": SOCKET_TIMEOUT, "socket_timeout": SOCKET_TIMEOUT},
        }
    else:
        default = {"BACKEND": LOCMEM, "LOCATION": "tessera-default"}
    return {"default": default, "local": local}
