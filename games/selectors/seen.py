"""What a seat sees of a game at a seq, worked out once.

A game's answer, its legal moves, its state and its text board all show a seat (or a spectator)
the same few things at the game's current seq: the rules' view, the presentation (panels and
prompt), the legal moves and their notation when the seat is to act, the rules' text board, and
what the log says of pending proposals and the seats still playing. Every one of them depends
only on the log up to that seq and on the seat, so it is worked out once per (game, seq, seat or
spectator) and kept: in the shared cache when Redis is configured (every web process, door and
worker reads the same entry), and in a small memory of this process in front of it.

Why it can never be stale, nor show a seat what another may not see:

- the key names the game (its id and its creation time, so a reused id is another key), the seq,
  the status, the seat (`s` for a spectator) and the rules' version, both the one the game was
  recorded under and the server's: a write that changes anything here appends an event and moves
  the seq, and a different seat is a different key;
- an entry is kept only once what it was worked out from is committed: inside a transaction
  (which may still roll back, and give its seq to another event) it is kept when the
  transaction commits, or never.

What depends on the caller or on the clock (seats and names, clocks, the creator's invitation
key) is not kept here: the game's answer adds it at each request.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from redis.exceptions import RedisError

import rules
from games import store
from games.models import EventKind, Game, GameStatus
from games.selectors.life import PROPOSALS, life_facts

logger = logging.getLogger(__name__)

SHAPE = 3  # what an entry holds; a change of it is a change of every key (3: notation kept with its words)


def seen(*, game: Game, seat: int | None, new: bool = False) -> dict[str, Any]:
    """What `seat` (None: a spectator) sees of `game` at its seq: `view`, and `moves` and
    `notation` (empty unless the seat is to act). The rules' work alone, no query:
    a move's answer asks for it, with `new` (its seq was just written: nobody can have kept it,
    so the shared cache is not asked, and the entry is kept in this process only). Read only,
    shared: copy before changing any of it."""
    return _kept([_seen(game, seat)], new=new)[0]


def presented(*, game: Game, seat: int | None) -> dict[str, Any]:
    """The rules' presentation (panels, prompt, touched cells) for `seat` at the game's seq:
    worked out when a reader first asks (a page, the game's answer), not on every move, since
    the program that made the move rarely draws it."""
    return _kept([_presented(game, seat)])[0]


def log_facts(*, game: Game) -> dict[str, Any]:
    """What the log says at the game's seq, the same for every seat: `draw_offer`,
    `takeback_request` and `playing` (one query of the log: asked for by the game's answer only)."""
    return _kept([_log_facts(game)])[0]


def game_seen(*, game: Game, seat: int | None) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """`seen`, `presented` and `log_facts` together, as the game's answer shows them: asked of
    the shared cache in one round trip, and what nobody kept yet kept in one more."""
    shown, shown_as, facts = _kept([_seen(game, seat), _presented(game, seat), _log_facts(game)])
    return shown, shown_as, facts


def board(*, game: Game, seat: int | None) -> str:
    """The rules' text board for `seat` at the game's seq (worked out only when asked)."""
    return _kept([_board(game, seat)])[0]


def board_presented(*, game: Game, seat: int | None) -> tuple[str, dict[str, Any]]:
    """`board` and `presented` together, as the text board shows them: asked of the shared cache
    in one round trip, and what nobody kept yet kept in one more (a page asks at every move)."""
    shown_board, shown_as = _kept([_board(game, seat), _presented(game, seat)])
    return shown_board, shown_as


def _board(game: Game, seat: int | None) -> tuple[str, Any]:
    return seen_key(game, seat) + ":board", lambda: store.rules_of(game).render_text(store.state_at(game), seat)


def _seen(game: Game, seat: int | None) -> tuple[str, Any]:
    return seen_key(game, seat), lambda: worked_out(game, seat)


def _presented(game: Game, seat: int | None) -> tuple[str, Any]:
    return seen_key(game, seat) + ":presentation", lambda: presentation_of(game=game, state=store.state_at(game), seat=seat)


def _log_facts(game: Game) -> tuple[str, Any]:
    return _log_key(game, game.seq, game.status), lambda: life_facts(game=game)


def _log_key(game: Game, seq: int, status: str) -> str:
    return _key(game, None, seq, status) + ":log"


_MOVE, _ACTIVE = str(EventKind.MOVE.value), str(GameStatus.ACTIVE.value)  # plain strings: compared at every move


def carry_log_facts(*, game: Game, event: Any) -> None:
    """After a move just committed as the game's newest event (outside any transaction: the
    caller knows), the log's facts at its seq, where
    this process holds them at the seq before and the move cannot have changed them: nothing
    pending then, and the event no proposal and no seat put out (`Store.life_marks` finds no mark
    in it). A proposal once lapsed (declined, overtaken) stays lapsed as the log grows, and the
    seats playing change only at a mark, so the facts are the same. The reader that comes next
    (most often the other seat, whose page reads the game after every move) is spared the log's
    statement; kept in this process only, as the move's own entry is (`_keep_when_committed`)."""
    if event.kind != _MOVE or event.seq != game.seq or game.seq < 2:
        return
    payload = event.payload if type(event.payload) is dict else {}
    if payload.get("type") in PROPOSALS or payload.get("forfeit") is True:
        return
    before = _memory.get(_log_key(game, game.seq - 1, _ACTIVE))  # a move is made in an active game
    if before is None or before["draw_offer"] is not None or before["takeback_request"] is not None:
        return
    _keep_when_committed({_log_key(game, game.seq, game.status): before}, shared=False)


def _kept(wanted: list[tuple[str, Any]], new: bool = False) -> list[Any]:
    """The entries of `wanted` (key, work): from this process's memory, else from the shared
    cache (one round trip for all), else worked out and kept (one more for all)."""
    entries = [None if new else _memory.get(key) for key, _ in wanted]
    missing = [key for (key, _), entry in zip(wanted, entries) if entry is None]
    if not missing:
        return entries
    shared = {} if new else _shared_get(missing)
    made = {}
    for number, (key, work) in enumerate(wanted):
        if entries[number] is not None:
            continue
        entry = shared.get(key)
        if entry is None:
            entry = made[key] = work()
        else:
            _memory.put(key, entry)
        entries[number] = entry
    if made:
        _keep_when_committed(made, shared=not new)
    return entries


def seen_key(game: Game, seat: int | None) -> str:
    return _key(game, seat, game.seq, game.status)


def _key(game: Game, seat: int | None, seq: int, status: str) -> str:
    server_version = rules.get(game.rules).version
    return (f"seen:{SHAPE}:{game.pk}:{game.created_at.timestamp():.6f}:{seq}:{status}:"
            f"{'s' if seat is None else seat}:{game.rules}:{game.rules_version}:{server_version}")


def worked_out(game: Game, seat: int | None) -> dict[str, Any]:
    game_rules, state = store.rules_of(game), store.state_at(game)
    moves = game_rules.legal_moves(state, seat) if seat is not None and seat in game.to_act else []
    return {
        "view": game_rules.view(state, seat),
        "moves": moves,
        "notation": [game_rules.describe_move(state, seat, move) for move in moves],
    }


def presentation_of(*, game: Game, state: Any, seat: int | None) -> dict[str, Any]:
    """The rules' presentation for the seat, its touched cells against the state before the
    newest event (most often still in the recent states' cache: the move just made it)."""
    before = store.state_at(game, game.seq - 1) if game.seq > 1 else None
    shown = store.rules_of(game).presentation(state, seat, before)
    if game.status != GameStatus.ACTIVE:  # ended by the service (a draw, an abort) or not begun: nobody is asked
        shown["prompt"] = None
    return shown


def _keep_when_committed(entries: dict[str, Any], shared: bool = True) -> None:
    """Keep `entries` (key: value) once committed: in this process, and in Redis (one round
    trip) unless `shared` is False. A move's own entry (`new`) stays in this process: the mover's
    next read is most often served by it, and another process that reads the seq first works the
    entry out (the rules' work, no query) and shares it then. Its key names the seq, so a miss is
    all another node can meet, never a stale entry; and a move is spared a Redis round trip."""

    def keep():
        for key, value in entries.items():
            _memory.put(key, value)
        if shared and settings.SCRAPYARD_SEEN_SHARED:
            try:
                if len(entries) == 1:  # a SET with its expiry, less than a pipeline
                    ((key, value),) = entries.items()
                    cache.set(key, value, settings.SCRAPYARD_SEEN_SECONDS)
                else:
                    cache.set_many(entries, settings.SCRAPYARD_SEEN_SECONDS)
            except (RedisError, OSError):  # Redis away: this process still keeps them
                logger.warning("seen: the shared cache is unreachable; %s kept in this process only", ", ".join(entries))

    if connection.in_atomic_block:
        transaction.on_commit(keep, robust=True)
    else:
        keep()


def _shared_get(keys: list[str]) -> dict[str, Any]:
    if not settings.SCRAPYARD_SEEN_SHARED:
        return {}
    try:
        if len(keys) == 1:  # a GET: less than an MGET's reading of a list
            entry = cache.get(keys[0])
            return {} if entry is None else {keys[0]: entry}
        return cache.get_many(keys)
    except (RedisError, OSError):
        return {}


class _Memory:
    """A small thread-safe LRU of entries this process read or worked out."""

    def __init__(self, size: int):
        self.size = size
        self._entries: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Any:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def put(self, key: str, entry: Any) -> None:
        if self.size <= 0:
            return
        with self._lock:
            self._entries[key] = entry
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_memory = _Memory(settings.SCRAPYARD_SEEN_IN_MEMORY)


def forget() -> None:
    """Tests: this process's memory of what was seen (the shared cache is cleared apart)."""
    _memory.clear()
