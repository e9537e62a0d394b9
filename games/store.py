"""The fold: a game's state from its events, through its rules module, with snapshots as a cache.

`state_at` is the one way to get a state. It starts from the newest snapshot at or before the
wanted event (or from setup) and applies the events after it, so its cost is bounded by the
snapshot interval, not by the length of the game. A snapshot is used only if it proves itself
(the hash of the event it folds up to, and a digest of its state): an edited or emptied one is
logged and passed over for an earlier one, or the fold starts from setup.

Because the log is append-only, the state after event n of a game never changes, so each process
also keeps the most recently used states in memory, keyed by (game, its creation time, n). Only
committed states enter it: a state read outside any transaction, or one a write computed, once
that write has committed. Several processes each keep their own; none can hold a stale one.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from typing import Any, Callable

from django.conf import settings
from django.db import connection, transaction
from django.db.models import OuterRef, Subquery

import rules
from games import errors
from games.models import Event, EventKind, Game, Snapshot
from rules.base import Rules
from rules.values import canonical_json
from rules.words import msg

log = logging.getLogger(__name__)


def rules_of(game: Game) -> Rules:
    """The game's rules, if they still fold the version its log was recorded under."""
    game_rules = rules.get(game.rules)
    if not game_rules.folds_version(game.rules_version):
        raise errors.RulesVersionGone(
            msg("game {pk} was played under {rules} version {rules_version}, which this server (version {version}) no longer folds", pk=game.pk, rules=game.rules, rules_version=game.rules_version, version=game_rules.version)
        )
    return game_rules.folding(game.rules_version)


def recorded_version(game: Game) -> int:
    """The rules version in the game's created event (1 for games stored before versions were)."""
    created = Event.objects.filter(game=game, seq=1).values_list("payload", flat=True).first() or {}
    return created.get("rules_version", 1)


TAKEBACK = "takeback"  # a system event that folds to the state before a taken-back move


def fold_event(
    game_rules: Rules, seed: str, state: Any, kind: str, seat: int | None, payload: dict, *, new: bool = False,
    earlier: Callable[[int], Any] | None = None,
) -> Any:
    """One event's effect. Moves and timeouts carry a `move` or `forfeit`; system events none,
    but a takeback, which folds to the state after event `to` (`earlier` gives it). A `new` move
    is checked (`apply`); a stored one was checked when it was played and is folded by the
    trusting `replay`, so a stricter check added later never breaks an old game."""
    if kind == EventKind.CREATED:
        return game_rules.setup(payload["players"], payload["options"], seed)
    if "move" in payload:
        fold = game_rules.apply if new else game_rules.replay
        return fold(state, seat, payload["move"])
    if payload.get("forfeit"):
        return game_rules.forfeit(state, seat)
    if kind == EventKind.SYSTEM and payload.get("type") == TAKEBACK:
        if earlier is None:
            raise ValueError("a takeback folds to an earlier state: the caller passes `earlier`")
        return earlier(payload["to"])
    return state


class _RecentStates:
    """A small thread-safe LRU of committed states."""

    def __init__(self, size: int):
        self.size = size
        self._states: OrderedDict[tuple, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Any | None:
        with self._lock:
            state = self._states.get(key)
            if state is not None:
                self._states.move_to_end(key)
            return state

    def put(self, key: tuple, state: Any) -> None:
        with self._lock:
            self._states[key] = state
            self._states.move_to_end(key)
            while len(self._states) > self.size:
                self._states.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._states.clear()


recent_states = _RecentStates(settings.SCRAPYARD_RECENT_STATES)


def _key(game: Game, seq: int) -> tuple:
    return (game.pk, game.created_at, seq)


def remember_when_committed(game: Game, seq: int, state: Any) -> None:
    """Cache a state a write computed, once (and only if) its transaction commits."""
    key = _key(game, seq)
    transaction.on_commit(lambda: recent_states.put(key, state), robust=True)


def state_at(game: Game, seq: int | None = None) -> Any:
    """The state after event `seq` (default: the newest)."""
    target = game.seq if seq is None else seq
    key = _key(game, target)
    state = recent_states.get(key)
    if state is None:
        state = _fold_from_snapshot(game, target)
        if not connection.in_atomic_block:  # autocommit: it read committed events only
            recent_states.put(key, state)
    return state


def _fold_from_snapshot(game: Game, target: int) -> Any:
    game_rules = rules_of(game)
    state, start = _newest_good_snapshot(game, game_rules, target)
    events = (
        Event.objects.filter(game=game, seq__gt=start, seq__lte=target)
        .order_by("seq")
        .values_list("kind", "seat", "payload")
    )
    for kind, seat, payload in events:
        state = fold_event(game_rules, game.seed, state, kind, seat, payload, earlier=lambda seq: state_at(game, seq))
    return state


def _newest_good_snapshot(game: Game, game_rules: Rules, target: int) -> tuple[Any, int]:
    """The newest snapshot at or before `target` that proves itself, loaded, and its seq; (None,
    0) to fold from setup. A snapshot that fails its check is logged and passed over."""
    below = target
    while True:
        snapshot = _snapshot_with_log_hash(game, below)
        if snapshot is None:
            return None, 0
        problem = snapshot_problem(snapshot, snapshot.log_hash)
        if problem is None:
            try:
                return game_rules.load(snapshot.state), snapshot.seq
            except Exception as error:  # a state that proves itself but will not load: a bug
                problem = f"the rules' loader ({type(error).__name__})"
        log.warning("snapshot %s of game %s disagrees with %s: not used", snapshot.seq, game.pk, problem)
        below = snapshot.seq - 1


def _snapshot_with_log_hash(game: Game, below: int) -> Snapshot | None:
    log_hash = Event.objects.filter(game=OuterRef("game"), seq=OuterRef("seq")).values("hash")[:1]
    return (
        Snapshot.objects.filter(game=game, seq__lte=below)
        .annotate(log_hash=Subquery(log_hash))
        .order_by("-seq")
        .first()
    )


def state_digest(data: Any) -> str:
    return hashlib.sha256(canonical_json(data).encode()).hexdigest()


def snapshot_problem(snapshot: Snapshot, log_hash: str | None) -> str | None:
    """What a snapshot disagrees with, or None: it must name the log's event it folds up to and
    hold exactly the state it was written with."""
    if not snapshot.event_hash or snapshot.event_hash != log_hash:
        return "the hash of its event in the log"
    if snapshot.state_digest != state_digest(snapshot.state):
        return "its state digest"
    return None


def state_from_zero(game: Game, seq: int | None = None) -> Any:
    """The same state folded from the first event, ignoring every snapshot: the audit path."""
    target = game.seq if seq is None else seq
    game_rules = rules_of(game)
    state, states = None, {}
    for seq, kind, seat, payload in (
        Event.objects.filter(game=game, seq__lte=target).order_by("seq").values_list("seq", "kind", "seat", "payload")
    ):
        state = fold_event(game_rules, game.seed, state, kind, seat, payload, earlier=states.__getitem__)
        states[seq] = state
    return state


def snapshot_due(seq: int) -> bool:
    return seq % settings.SCRAPYARD_SNAPSHOT_EVERY == 0


def snapshot_write(game: Game, seq: int, state: Any) -> None:
    data = rules_of(game).dump(state)
    event_hash = Event.objects.filter(game=game, seq=seq).values_list("hash", flat=True).get()
    Snapshot.objects.get_or_create(
        game=game, seq=seq, defaults={"state": data, "event_hash": event_hash, "state_digest": state_digest(data)}
    )
