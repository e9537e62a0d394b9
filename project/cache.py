"""Django's Redis cache, keeping its Redis clients.

Django's `RedisCacheClient.get_client` builds a new `redis.Redis` for every cache call, and
building one fills a table of some 170 response callbacks, paid by every request (its rate-limit
count) and every move (the receivers' look-ups): docs/decisions/0010-redis-clients-kept.md. A
`redis.Redis` is safe to share between threads (it takes a connection from its pool per
command), so one per pool is kept and reused.
"""

from __future__ import annotations

from django.core.cache.backends import redis as django_redis
from django.utils.functional import cached_property

# Counts `batch` requests ahead at once, batch being an eighth of what is left under the limit
# (at most ARGV[4], at least one): far from the limit a process asks once for several requests,
# near it once a request, as if it never batched. Atomic, so the batches of all processes add up
# to no more than the limit.
COUNT_AHEAD = """
local previous = tonumber(redis.call('GET', KEYS[2]) or '0')
local unused = math.min(tonumber(ARGV[5]), previous)
if unused > 0 then previous = redis.call('DECRBY', KEYS[2], unused) end
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local headroom = tonumber(ARGV[2]) - (previous * tonumber(ARGV[3]) + current)
local batch = math.max(1, math.min(tonumber(ARGV[4]), math.floor(headroom / 8)))
current = redis.call('INCRBY', KEYS[1], batch)
if current == batch then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {current, previous, batch}
"""


class RedisCacheClient(django_redis.RedisCacheClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._clients[index] = self._client(connection_pool=self._get_connection_pool(write))
        return client

    def set_many(self, data, timeout):
        """Each key SET with its expiry, in one round trip: Django's MSET and an EXPIRE a key in a
        MULTI block cost Redis twice the commands, and an EXPIRE is no less atomic in a SET."""
        pipeline = self.get_client(None, write=True).pipeline(transaction=False)
        for key, value in data.items():
            pipeline.set(key, self._serializer.dumps(value), ex=timeout)
        pipeline.execute()


class RedisCache(django_redis.RedisCache):
    @cached_property
    def _cache(self) -> RedisCacheClient:
        return RedisCacheClient(self._servers, **self._options)

    def count_ahead(self, key: str, other: str, timeout: int, *, limit: int, other_weight: float,
                    most: int, other_unused: int = 0) -> tuple[int, int, int]:
        """Count up to `most` requests at once at `key` (expiring in `timeout` seconds once made),
        as many as `COUNT_AHEAD` allows under `limit` given the count at `other` (less the
        `other_unused` counted there and never made) weighted by `other_weight`; in one round trip
        (the rate limits, `project.throttles`). The count at `key` after, the count at `other`,
        and how many were counted."""
        key, other = self.make_and_validate_key(key), self.make_and_validate_key(other)
        client = self._cache.get_client(key, write=True)
        script = self._count_scripts.get(id(client))
        if script is None:  # a script, not a pipeline: redis-py builds a pipeline as dearly as a client
            script = self._count_scripts[id(client)] = client.register_script(COUNT_AHEAD)
        current, previous, batch = script(keys=[key, other], args=[timeout, limit, repr(other_weight), most, other_unused])
        return int(current), int(previous or 0), int(batch)

    @cached_property
    def _count_scripts(self) -> dict[int, object]:
        return {}


def spare_closing_caches() -> None:
    """Django closes every cache at the end of each request (`request_finished`); for a backend
    whose `close` does nothing (Redis's clients are pooled, a file cache has nothing open) that is
    a few dozen calls a request for nothing. The receiver is disconnected only while every
    configured cache is such a backend."""
    from django.conf import settings
    from django.core import signals
    from django.core.cache import caches, close_caches
    from django.core.cache.backends.base import BaseCache

    if all(type(caches[alias]).close is BaseCache.close for alias in settings.CACHES):
        signals.request_finished.disconnect(close_caches)
