"""Checks anyone can run over a stored game: the hash chain, the rules version, and the snapshot
cache. Each check reports every inconsistency it finds, as text, and never stops at the first
(nor crashes on a game whose rules or state are broken)."""

from __future__ import annotations

from typing import Any

import rules
from games import log, store
from games.models import Event, Game, Snapshot


def verify_chain(game: Game) -> list[str]:
    return log.chain_problems(game, list(Event.objects.filter(game=game).order_by("seq")))


def verify_rules(game: Game) -> list[str]:
    """The game's rules exist and fold the version its log was recorded under."""
    try:
        game_rules = rules.get(game.rules)
    except rules.UnknownRules:
        return [f"the game's rules {game.rules!r} are not installed"]
    recorded = store.recorded_version(game)
    if not game_rules.folds_version(recorded):
        return [f"{game.rules} version {game_rules.version} does not fold logs of version {recorded}"]
    return []


def verify_fold(game: Game) -> list[str]:
    try:
        store.state_from_zero(game)
    except Exception as error:  # report, never crash: a damaged log is what we are looking for
        return [f"the log does not fold from the first event: {type(error).__name__}: {error}"]
    return []


def verify_snapshots(game: Game) -> list[str]:
    game_rules = store.rules_of(game)
    hashes = dict(Event.objects.filter(game=game).values_list("seq", "hash"))
    problems = []
    for snapshot in Snapshot.objects.filter(game=game).order_by("seq"):
        problem = store.snapshot_problem(snapshot, hashes.get(snapshot.seq))
        if problem is None and not _agrees_with_fold(game, game_rules, snapshot):
            problem = "the fold from the first event"
        if problem is not None:
            problems.append(f"the snapshot at {snapshot.seq} disagrees with {problem}")
    return problems


def _agrees_with_fold(game: Game, game_rules: Any, snapshot: Snapshot) -> bool:
    try:
        return game_rules.load(snapshot.state) == store.state_from_zero(game, snapshot.seq)
    except Exception:
        return False


def verify_game(game: Game) -> list[str]:
    problems = verify_chain(game) + verify_rules(game)
    if not verify_rules(game):
        problems += verify_fold(game)
        if not problems:
            problems += verify_snapshots(game)
    return problems
