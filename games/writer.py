"""The one event writer: every change to a game goes through `write` (or `create` for a new one).

A door or a service hands the writer a decision, `decide(change)`, and the writer does the rest
around it, the same way for every kind of change (moves, seats taken and left, resign, abort,
draw and takeback, clocks and timeouts, forced moves, conditional lines played):

1. open: the game is read under the concurrency strategy that fits where the change runs
   (`games.concurrency`: the version check, the row lock, SQLite's database lock);
2. decide: the service checks the request against the game and appends events
   (`Change.append`); each is folded through the rules and joins the hash chain (`games.log`);
3. project: the game row's cached columns, the deadline rows and a snapshot when one is due join
   the same unit of work (`games.projection`), which runs as the change's last write;
4. notify: bots, live streams and the log's consumers are told once the transaction commits,
   and the new state enters the process's cache only then.

The invariant that every committed change moves the game's version lives here, in `_close`: a
change with events updates the game row; one without writes the row's columns its decision set
(a flag for the log's consumers, `Game.lines_waiting`), or else has its strategy move the
version. No kind of write can forget it, and a move read before it always decides again; and no
module but this one (with the strategies and the stores it runs) writes or locks the game row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.db import transaction

from games import concurrency, errors, log, projection, store, stores
from games.models import Event, Game
from rules.words import msg

# Reads a change may take while other writes keep changing its game before it is stored. Each
# loss means another writer's commit, which usually moves the seq on (the next read refuses the
# move as stale): a change lost more often than this is refused as stale.
VERSION_TRIES = 8
T = TypeVar("T")
_UNFOLDED = object()


class Change:
    """One game, open for writing under `strategy`. A move's change (`one_unit`) appends one
    event, which with the projections is one unit of work, run as the change closes; any other
    change writes each event as it is appended (what it reads next sees it), and the projections
    as it closes."""

    def __init__(self, game: Game, strategy: concurrency.Strategy, *, one_unit: bool = False) -> None:
        self.game = game
        self._strategy = strategy
        self._one_unit = one_unit or strategy.guarded
        self._unit = strategy.unit(game)
        self._state: Any = _UNFOLDED
        self._acted: int | None = None
        self._appended = 0
        self._clocks_changed = False

    def state(self) -> Any:
        """The game's state after everything appended so far."""
        if self._state is _UNFOLDED:
            self._state = store.state_at(self.game)
        return self._state

    def append(self, kind: str, seat: int | None, payload: dict, *, public_payload: dict | None = None,
               idempotency: tuple[int, str, str] | None = None, state: Any = _UNFOLDED,
               acted: bool = False) -> Event:
        """Append one event. `state` is the state after it where the caller folded it already (a
        new move, checked by the rules as it folded); otherwise the event is folded here.
        `acted`: the event is `seat`'s own act in the game (its clock settles)."""
        if state is _UNFOLDED:
            state = store.fold_event(store.rules_of(self.game), self.game.seed, self.state(), kind, seat, payload,
                                     earlier=lambda seq: store.state_at(self.game, seq))
        if self._appended and self._one_unit:
            raise RuntimeError("a move's change appends one event: its unit of work runs once")
        event = log.append(self.game, kind=kind, seat=seat, payload=payload, public_payload=public_payload,
                           idempotency=idempotency, unit=self._unit)
        if not self._one_unit:
            self._unit.run()
        store.remember_when_committed(self.game, event.seq, state)
        self._state, self._acted = state, seat if acted else None
        self._appended += 1
        return event

    def clocks_changed(self) -> None:
        """Something the clocks depend on changed with no event (a seat's owner came back):
        the deadline rows are worked out again as the change closes."""
        self._clocks_changed = True

    def _close(self) -> None:
        if self._appended:
            projection.record_state(self.game, self.state(), acted=self._acted, writes=self._unit)
            self._unit.run()
        else:
            self._close_without_an_event()
        self._strategy.store.remember_loaded(self.game)

    def _close_without_an_event(self) -> None:
        """The columns the decision set on `self.game` are written; their UPDATE moves the version,
        as any UPDATE of the row does. With none, the strategy moves it (the change may have
        written rows a move reads: seats, deadlines)."""
        changes = self._strategy.store.game_changes(self.game)
        if changes:
            self._unit.update(Game, self.game.pk, changes)
        if self._clocks_changed:
            projection.clocks_again(self.game, writes=self._unit)
        if changes or self._clocks_changed:
            self._unit.run()
        if not changes:
            self._strategy.version_moved(self.game)


def write(game_id: int, decide: Callable[[Change], T], *, move: bool = False, user_id: int | None = None,
          idempotency_key: str | None = None) -> T:
    """`decide(change)` on the game, written as one change; its answer. `move`: a move, which
    reads the game whole in one statement (with the caller's `idempotency_key`) and may run
    under the version check. A change whose game moved on between its read and its write wrote
    nothing, and is read and decided again."""
    for _ in range(VERSION_TRIES):
        try:
            with concurrency.opened(optimistic=move) as strategy:
                game = strategy.read(game_id, whole=move, user_id=user_id, idempotency_key=idempotency_key)
                if game is None:
                    raise errors.GameNotFound(msg("there is no game {id}", id=game_id))
                change = Change(game, strategy, one_unit=move)
                answer = decide(change)
                change._close()
                return answer
        except stores.VersionMoved:
            continue
    seq = Game.objects.filter(pk=game_id).values_list("seq", flat=True).first()
    raise errors.StaleSeq(msg("the game kept changing while the move was decided; read it again"), seq=seq)


def create(fields: dict[str, Any], decide: Callable[[Change], T]) -> T:
    """A new game from `fields` (the row's columns), and `decide(change)` on it: its created
    event and the seats taken at once. Nobody else can see the row before it commits."""
    with transaction.atomic():
        game = Game.objects.create(**fields)
        store_now = stores.current()
        store_now.remember_loaded(game)
        change = Change(game, concurrency.DatabaseLock(store_now))
        answer = decide(change)
        change._close()
        return answer
