"""Django's ``RedisCache``, except that a Redis that cannot be reached is a miss, never an error: a
read returns the default, a write is dropped, each logged (at most once a minute). What the platform
caches is safe to lose (Prolific's counts and keys, a refused entry, a pool's slots, the API's
throttle counts: with Redis down the API is not throttled), so a cache outage never answers a 500.
Where it is used is ``config/cache.py``'s choice."""

from __future__ import annotations

import logging
import time
from functools import wraps
from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

OUTAGE = (RedisConnectionError, RedisTimeoutError, OSError)
_last_logged = 0.0


def _missed(method: str, exc: Exception) -> None:
    global _last_logged
    if time.monotonic() - _last_logged > 60:
        _last_logged = time.monotonic()
        log.warning("the cache's Redis does not answer (%s: %s): a miss, nothing stored", method, exc)


def _tolerant(method: str, fallback: Any) -> Any:
    base = getattr(DjangoRedisCache, method)

    @wraps(base)
    def call(self: DjangoRedisCache, *args: Any, **kwargs: Any) -> Any:
        try:
            return base(self, *args, **kwargs)
        except OUTAGE as exc:
            _missed(method, exc)
            if method == "get":
                return kwargs.get("default", args[1] if len(args) > 1 else None)
            return fallback() if callable(fallback) else fallback

    return call


class RedisCache(DjangoRedisCache):
    """Django's RedisCache; an unreachable Redis is a miss (see the module's docstring)."""

    get = _tolerant("get", None)
    set = _tolerant("set", None)
    add = _tolerant("add", False)
    touch = _tolerant("touch", False)
    delete = _tolerant("delete", False)
    has_key = _tolerant("has_key", False)
    get_many = _tolerant("get_many", dict)
    set_many = _tolerant("set_many", list)
    delete_many = _tolerant("delete_many", None)
