"""The Redis cache's own round trips (`project.cache.RedisCacheClient._round_trip`): GET, SET,
MGET and several SETs sent on a connection of the thread's own answer as Django's own Redis
cache does (one contract, run on both), and a dropped connection is made again."""

from __future__ import annotations

import pytest
import redis
from django.core.cache import cache

from project.cache import RedisCacheClient

pytestmark = pytest.mark.redis


@pytest.fixture(params=["django", "ours"])
def either_cache(request, settings):
    """The same contract for Django's own Redis cache (the reference) and ours."""
    from django.core.cache.backends.redis import RedisCache as DjangoRedisCache

    from project.cache import RedisCache

    location, options = settings.CACHES["default"]["LOCATION"], {"OPTIONS": settings.CACHES["default"].get("OPTIONS", {})}
    kind = DjangoRedisCache if request.param == "django" else RedisCache
    return kind(location, {**options, "KEY_PREFIX": f"contract-{request.param}"})


def _ttl(store, key: str) -> int:
    return store._cache.get_client(write=True).ttl(store.make_and_validate_key(key))


def test_values_come_back_as_stored_with_their_expiry(either_cache):
    store = either_cache
    store.set("round-trip:a", {"view": [1, 2], "moves": ()}, 30)
    store.set("round-trip:n", 7, None)
    store.set_many({"round-trip:b": "text", "round-trip:c": [None]}, 60)
    assert store.get("round-trip:a") == {"view": [1, 2], "moves": ()}
    assert store.get("round-trip:n") == 7 and _ttl(store, "round-trip:n") == -1  # no expiry
    assert 0 < _ttl(store, "round-trip:a") <= 30 and 30 < _ttl(store, "round-trip:b") <= 60
    assert store.get("round-trip:none", "default") == "default"
    assert store.get_many(["round-trip:b", "round-trip:none", "round-trip:c"]) == {
        "round-trip:b": "text", "round-trip:c": [None]}
    assert store.get_many([]) == {}
    store.set("round-trip:a", "gone", 0)  # Django's meaning of 0: not kept at all
    assert store.get("round-trip:a") is None
    store.set_many({"round-trip:z": 1}, 0)
    assert store.get("round-trip:z") is None
    store.delete_many(["round-trip:n", "round-trip:b", "round-trip:c"])
    assert store.get_many(["round-trip:n", "round-trip:b"]) == {}


def test_a_connection_dropped_meanwhile_is_made_again_once():
    """Redis restarted, or an idle connection closed by the server: the next request is served."""
    cache.set("round-trip:kept", "yes", 30)
    assert cache.get("round-trip:kept") == "yes"
    own = cache._cache._own.connections[0]
    own.send_command("CLIENT", "ID")
    cache._cache.get_client(write=True).client_kill_filter(_id=own.read_response())
    assert cache.get("round-trip:kept") == "yes"
    assert cache._cache._own.connections[0]._sock is not None
    cache.delete("round-trip:kept")


def test_redis_away_is_an_error_the_caller_handles():
    away = RedisCacheClient(["redis://127.0.0.1:1/0"], socket_connect_timeout=0.2, socket_timeout=0.2)
    with pytest.raises((redis.RedisError, OSError)):
        away.get("anything", None)
    with pytest.raises((redis.RedisError, OSError)):
        away.set_many({"a": 1}, 10)


def test_an_error_answer_is_raised_and_the_next_request_is_served(monkeypatch):
    key = cache.make_and_validate_key("round-trip:list")
    cache._cache.get_client(write=True).rpush(key, "x")
    with pytest.raises(redis.ResponseError):  # a GET of a list: WRONGTYPE, its connection closed
        cache._cache._round_trip(False, [("GET", key), ("GET", key)])
    cache.set("round-trip:after", 1, 30)
    assert cache.get("round-trip:after") == 1
    cache.delete_many(["round-trip:list", "round-trip:after"])
