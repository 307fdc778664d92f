"""The cache (config/cache.py, config/redis_cache.py): on Redis the API's throttle counts are one
count for every process; a Redis that cannot be reached is a miss, never an error (an annotator's
page, an entry check, the API go on), and the pool's slots, the entry's refusals and Prolific's
answers are simply asked again."""

import secrets
import socket

import pytest
import redis
from django.core.cache import caches
from django.test import override_settings
from rest_framework.test import APIClient

from api.tokens import api_token_create
from config.cache import cache_settings

REDIS_URL = "redis://127.0.0.1:6379/0"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens there once closed


def redis_answers() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5).ping())
    except redis.RedisError:
        return False


def test_a_redis_that_does_not_answer_is_a_miss_never_an_error():
    with override_settings(CACHES=cache_settings(f"redis://127.0.0.1:{closed_port()}/0", "")):
        cache = caches["default"]
        assert cache.get("k") is None and cache.get("k", "fallback") == "fallback"
        cache.set("k", 1, 30)  # dropped
        assert cache.add("k", 1) is False and cache.get_many(["k"]) == {}
        assert cache.get_or_set("slots", lambda: [1, 2], 30) == [1, 2]  # the hot path's use: computed again


@pytest.mark.skipif(not redis_answers(), reason=f"no Redis at {REDIS_URL}")
def test_on_redis_a_value_and_its_prefix_are_shared_by_every_process():
    prefix = f"tessera-test-{secrets.token_hex(4)}"
    with override_settings(CACHES=cache_settings("", REDIS_URL, key_prefix=prefix)):
        cache = caches["default"]
        cache.set("answer", {"n": 42}, 30)
        assert cache.get("answer") == {"n": 42}
        raw = redis.Redis.from_url(REDIS_URL)
        assert raw.exists(f"{prefix}:1:answer")  # what another node's cache reads
        cache.delete("answer")


@pytest.mark.skipif(not redis_answers(), reason=f"no Redis at {REDIS_URL}")
@pytest.mark.django_db
def test_the_api_throttle_counts_in_redis(owner):
    prefix = f"tessera-test-{secrets.token_hex(4)}"
    with override_settings(CACHES=cache_settings("", REDIS_URL, key_prefix=prefix), API_THROTTLE_READS="2/min"):
        _, plain = api_token_create(user=owner, name="tests")
        api = APIClient(HTTP_AUTHORIZATION=f"Bearer {plain}")
        assert [api.get("/api/v1/studies/").status_code for _ in range(3)] == [200, 200, 429]
        assert redis.Redis.from_url(REDIS_URL).keys(f"{prefix}:1:throttle:api-read:*")
        caches["default"].delete_many([k.decode().split(":1:", 1)[1] for k in
                                       redis.Redis.from_url(REDIS_URL).keys(f"{prefix}:*")])
