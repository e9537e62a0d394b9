"""Checks anyone can run over a stored game: the hash chain and the snapshot cache."""

from __future__ import annotations

from games import store
from games.models import GENESIS_HASH, Event, Game, Snapshot


def verify_chain(game: Game) -> list[str]:
    problems: list[str] = []
    previous, count = GENESIS_HASH, 0
    for expected_seq, event in enumerate(Event.objects.filter(game=game).order_by("seq"), start=1):
        if event.seq != expected_seq:
            problems.append(f"seq {expected_seq} is missing (found {event.seq})")
            break
        if event.prev_hash != previous:
            problems.append(f"event {event.seq} does not point at the hash of event {event.seq - 1}")
        if event.compute_hash() != event.hash:
            problems.append(f"event {event.seq} was changed after it was written")
        previous, count = event.hash, expected_seq
    if not problems and count != game.seq:
        problems.append(f"the game says seq {game.seq} but holds {count} events")
    return problems


def verify_snapshots(game: Game) -> list[str]:
    game_rules = store.rules_of(game)
    problems = []
    for snapshot in Snapshot.objects.filter(game=game).order_by("seq"):
        folded = store.state_from_zero(game, snapshot.seq)
        if game_rules.load(snapshot.state) != folded:
            problems.append(f"the snapshot at {snapshot.seq} disagrees with the fold")
    return problems


def verify_game(game: Game) -> list[str]:
    return verify_chain(game) or verify_snapshots(game)
