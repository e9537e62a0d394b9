"""Django's Redis cache, keeping its Redis clients.

Django's `RedisCacheClient.get_client` builds a new `redis.Redis` for every cache call, and
building one fills a table of some 170 response callbacks, paid by every request (its rate-limit
count) and every move (the receivers' look-ups): docs/decisions/0010-redis-clients-kept.md. A
`redis.Redis` is safe to share between threads (it takes a connection from its pool per
command), so one per pool is kept and reused.
"""

from __future__ import annotations

import os
import threading

from django.core.cache.backends import redis as django_redis
from django.utils.functional import cached_property
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

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
    """Django's, with its clients kept, and its GET, SET, MGET and SETs of several keys sent on
    a connection of this thread's own (`_round_trip`): the reads and writes of what a seat sees
    (`games.selectors.seen`), a few each request. redis-py wraps each command in a connection
    pool's checkout and return, a retry and its telemetry hooks, some hundred Python calls that
    cost three times the round trip's own (docs/decisions/0033-what-a-real-clients-reads-cost.md). Every other command
    goes through redis-py's client as Django sends it."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}
        self._own = threading.local()

    def get(self, key, default):
        (value,) = self._round_trip(False, [("GET", key)])
        return default if value is None else self._serializer.loads(value)

    def get_many(self, keys):
        if not keys:
            return {}
        (values,) = self._round_trip(False, [("MGET", *keys)])
        return {key: self._serializer.loads(value) for key, value in zip(keys, values) if value is not None}

    def set(self, key, value, timeout):
        if timeout == 0:
            return super().set(key, value, timeout)  # a DEL, as Django sends it
        self._round_trip(True, [_set(key, self._serializer.dumps(value), timeout)])
        return None

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._clients[index] = self._client(connection_pool=self._get_connection_pool(write))
        return client

    def set_many(self, data, timeout):
        """Each key SET with its expiry, in one round trip: Django's MSET and an EXPIRE a key in a
        MULTI block cost Redis twice the commands, and an EXPIRE is no less atomic in a SET."""
        if timeout == 0:
            return super().set_many(data, timeout)
        if data:
            self._round_trip(True, [_set(key, self._serializer.dumps(value), timeout) for key, value in data.items()])
        return []

    def _round_trip(self, write: bool, commands: list[tuple]) -> list:
        """The answers to `commands`, sent together on this thread's connection to the server
        Django would ask (made at its first use, and again in a forked process). A connection
        that fails after serving earlier requests (Redis restarted, the connection dropped while
        idle) is made again once; a failure then is the caller's, as redis-py's would be. An error
        answer to a command leaves the connection closed (its other answers unread), and raised."""
        index = self._get_connection_pool_index(write)
        connection, used = self._connection(index)
        try:
            return _answers(connection, commands)
        except (RedisConnectionError, RedisTimeoutError, OSError):
            connection.disconnect()
            if not used:
                raise
            connection, _ = self._connection(index)
            try:
                return _answers(connection, commands)
            except BaseException:
                connection.disconnect()
                raise
        except BaseException:
            connection.disconnect()
            raise

    def _connection(self, index: int) -> tuple[object, bool]:
        """This thread's connection to server `index`, and whether it served a request before."""
        own = self._own
        if getattr(own, "pid", None) != os.getpid():  # none yet in this thread, or the parent's after a fork
            own.pid, own.connections = os.getpid(), {}
        connection = own.connections.get(index)
        if connection is not None and connection._sock is not None:
            return connection, True
        if connection is None:
            if index not in self._pools:  # as Django makes a server's pool
                self._pools[index] = self._pool_class.from_url(self._servers[index], **self._pool_options)
            pool = self._pools[index]
            connection = own.connections[index] = pool.connection_class(**pool.connection_kwargs)
        return connection, False


def _set(key, value, timeout) -> tuple:
    return ("SET", key, value) if timeout is None else ("SET", key, value, "EX", timeout)


def _answers(connection, commands: list[tuple]) -> list:
    connection.send_packed_command(connection.pack_commands(commands))
    return [connection.read_response() for _ in commands]


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
