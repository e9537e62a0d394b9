"""One Redis subscription per stream process, shared by all its streams.

A process may hold thousands of idle streams; each waits on an `asyncio.Event` here rather than on
a Redis connection of its own. One listener task per event loop subscribes to every game's
channel (`games.announce`) and wakes the streams of the game named, and to every account's
channel, which wakes the account's feed when a row of it is stored (`streams.account_feed`), or
the account is seated or invited, and to the revoked
tokens' channel (`accounts.auth`), which ends the streams opened with that token or that browser
session (`streams.sessions`): a revocation heard for a watched one is kept (`revoked`) while it is
watched, so a stream that reads its credential again a moment later cannot find it live. A notice that who
may watch a game changed (`members`) moves the game's `members` count, and each (re)subscription
moves `epoch`: a stream checks its caller's access again when either moved since it last looked.
If Redis goes away the listener retries each second; the streams meanwhile fall back to
re-reading the log (and their access) on their own short interval, so nothing is missed, only
later.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict

import redis.asyncio
from django.conf import settings

from accounts import auth
from games import announce

log = logging.getLogger(__name__)


class Hub:
    def __init__(self) -> None:
        self.waiting: dict[int, set[asyncio.Event]] = defaultdict(set)
        self.announced: dict[int, int] = {}  # the newest seq a notice named, per watched game
        self.accounts: dict[int, set[asyncio.Event]] = defaultdict(set)
        self.tokens: dict[str, set[asyncio.Event]] = defaultdict(set)  # key digest -> its streams
        self.gone: set[str] = set()  # watched digests whose revocation was heard
        self.members: dict[int, int] = defaultdict(int)  # per game: notices that its watchers changed
        self.epoch = 0  # subscriptions made: notices may have been lost before the newest
        self.connected = False
        self.listener: asyncio.Task | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.subscribed = False  # readiness (project.ops): notices reach this process now

    def watch(self, game_id: int, woken: asyncio.Event | None = None) -> asyncio.Event:
        """An event set whenever the game has news (`woken`, to share one between games);
        `unwatch` it when the stream ends."""
        self._listen_in_this_loop()
        woken = woken or asyncio.Event()
        self.waiting[game_id].add(woken)
        return woken

    def unwatch(self, game_id: int, woken: asyncio.Event) -> None:
        watchers = self.waiting.get(game_id)
        if watchers is not None:
            watchers.discard(woken)
            if not watchers:
                del self.waiting[game_id]
                self.announced.pop(game_id, None)
                self.members.pop(game_id, None)

    def watch_account(self, user_id: int, woken: asyncio.Event) -> None:
        """`woken` is set when the account is seated in a new game (`games.announce.seated`)."""
        self._listen_in_this_loop()
        self.accounts[user_id].add(woken)

    def unwatch_account(self, user_id: int, woken: asyncio.Event) -> None:
        watchers = self.accounts.get(user_id)
        if watchers is not None:
            watchers.discard(woken)
            if not watchers:
                del self.accounts[user_id]

    def watch_token(self, digest: str, woken: asyncio.Event) -> None:
        """`woken` is set when the token with this key digest is revoked."""
        self._listen_in_this_loop()
        self.tokens[digest].add(woken)

    def unwatch_token(self, digest: str, woken: asyncio.Event) -> None:
        watchers = self.tokens.get(digest)
        if watchers is not None:
            watchers.discard(woken)
            if not watchers:
                del self.tokens[digest]
                self.gone.discard(digest)

    def revoked(self, digest: str) -> bool:
        """Whether a revocation of this watched token or session was heard: for good, as neither
        comes back."""
        return digest in self.gone

    def access_version(self, game_id: int) -> tuple[int, int] | None:
        """Changes whenever a stream of the game must check its caller's access again; None while
        notices cannot be heard (check every time)."""
        if not self.connected:
            return None
        return self.epoch, self.members.get(game_id, 0)

    def newest(self, game_id: int) -> int | None:
        return self.announced.get(game_id)

    def listen(self) -> None:
        """Subscribe now if not yet (readiness asks before any stream opens)."""
        self._listen_in_this_loop()

    def _listen_in_this_loop(self) -> None:
        if not settings.REDIS_URL:
            return
        loop = asyncio.get_running_loop()
        if self.loop is not loop or self.listener is None or self.listener.done():
            self.loop = loop
            self.subscribed = False  # a listener of a loop gone may have died without saying so
            self.listener = loop.create_task(self._listen(settings.REDIS_URL))

    async def _listen(self, url: str) -> None:
        while True:
            client = redis.asyncio.Redis.from_url(url)
            try:
                pubsub = client.pubsub()
                await pubsub.psubscribe(f"{announce.game_prefix()}*", f"{announce.account_prefix()}*")
                self.subscribed = True
                await pubsub.subscribe(auth.revocation_channel())
                async for message in pubsub.listen():
                    if message["type"] == "pmessage":
                        self._wake(message["channel"], message["data"])
                    elif message["type"] == "message":
                        self._revoked(message["data"].decode())
                    elif message["type"] == "subscribe":
                        self._subscribed()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis away: streams poll meanwhile; try again soon
                log.warning("stream hub lost Redis (%s); retrying", error)
                await asyncio.sleep(1)
            finally:
                self.subscribed = False
                self.connected = False
                await client.aclose()

    def _subscribed(self) -> None:
        """Notices reach this process again: whatever was published before (a stream's first
        watch starts the listener, and the notice of a change made meanwhile went nowhere) is
        read by waking every stream, each of which reads the log and checks its access anew."""
        self.epoch += 1
        self.connected = True
        for watchers in list(self.waiting.values()):
            for woken in watchers:
                woken.set()

    def _revoked(self, digest: str) -> None:
        auth.forget_token(digest)  # before waking: the stream's check must not find it remembered
        if digest in self.tokens:
            self.gone.add(digest)
        for woken in self.tokens.get(digest, ()):
            woken.set()

    def _wake(self, channel: bytes, data: bytes) -> None:
        if channel.startswith(announce.account_prefix().encode()):
            self._wake_account(channel)
            return
        try:
            game_id = int(channel.decode().removeprefix(announce.game_prefix()))
            seq = int(json.loads(data)["seq"])
        except (ValueError, KeyError, TypeError):
            return
        if game_id not in self.waiting:
            return
        if b'"members"' in data:
            self.members[game_id] += 1
        self.announced[game_id] = max(seq, self.announced.get(game_id, 0))
        for woken in self.waiting[game_id]:
            woken.set()

    def _wake_account(self, channel: bytes) -> None:
        try:
            user_id = int(channel.decode().removeprefix(announce.account_prefix()))
        except ValueError:
            return
        for woken in self.accounts.get(user_id, ()):
            woken.set()


HUB = Hub()
