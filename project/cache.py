"""Django's Redis cache, keeping its Redis clients.

Django's `RedisCacheClient.get_client` builds a new `redis.Redis` for every cache call, and
building one fills a table of some 170 response callbacks: about a third of a millisecond each
time, paid by every request (its rate-limit count) and every move (the receivers' look-ups). A
`redis.Redis` is safe to share between threads (it takes a connection from its pool per
command), so one per pool is kept and reused.
"""

from __future__ import annotations

from django.core.cache.backends import redis as django_redis
from django.utils.functional import cached_property

COUNT_AND_READ = """
local current = redis.call('INCR', KEYS[1])
if current == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {current, redis.call('GET', KEYS[2])}
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


class RedisCache(django_redis.RedisCache):
    @cached_property
    def _cache(self) -> RedisCacheClient:
        return RedisCacheClient(self._servers, **self._options)

    def count_and_read(self, key: str, other: str, timeout: int) -> tuple[int, int]:
        """Increment `key` (expiring in `timeout` seconds once made) and read the count at
        `other`, in one round trip (the rate limits, `project.throttles`)."""
        key, other = self.make_and_validate_key(key), self.make_and_validate_key(other)
        client = self._cache.get_client(key, write=True)
        script = self._count_scripts.get(id(client))
        if script is None:  # a script, not a pipeline: redis-py builds a pipeline as dearly as a client
            script = self._count_scripts[id(client)] = client.register_script(COUNT_AND_READ)
        current, previous = script(keys=[key, other], args=[timeout])
        return int(current), int(previous or 0)

    @cached_property
    def _count_scripts(self) -> dict[int, object]:
        return {}
