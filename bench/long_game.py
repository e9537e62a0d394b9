"""A game 10,000 events long, built through the move service, to time loading at 10 events and at
10,000. Scavenge players who never land on anyone keep their trash for ever, so the game runs as
long as we like; every move is still a legal one from the rules' list."""

from __future__ import annotations

import random
import statistics
import time
import uuid

from django.contrib.auth import get_user_model

from games import services, store
from games.models import Game


def _peaceful(moves: list[dict], view: dict) -> dict:
    occupied = {tuple(s["at"]) for s in view["seats"] if isinstance(s["at"], list)}
    quiet = [m for m in moves if m["type"] == "stay" or (m["to"] != "centre" and tuple(m["to"]) not in occupied)]
    return quiet[0] if quiet else moves[0]


def build(events: int) -> Game:
    users = [get_user_model().objects.create_user(f"long{uuid.uuid4().hex[:10]}") for _ in range(2)]
    game = services.game_create(creator=users[0], rules_id="scavenge", players=2, options={})
    services.game_join(game_id=game.pk, user=users[1])
    game_rules, rnd = store.rules_of(game), random.Random(7)
    while True:
        game.refresh_from_db()
        if game.seq >= events or game.status != "active":
            return game
        seat = game.to_act[0]
        state = store.state_at(game)
        moves = game_rules.legal_moves(state, seat)
        rnd.shuffle(moves)
        move = _peaceful(moves, game_rules.view(state, seat))
        services.move_submit(game_id=game.pk, user=users[seat], move=move, expected_seq=game.seq)


def _median_ms(work, repeats: int) -> float:
    """Each load with the process's state cache emptied first: a load from the database (a
    snapshot and the events after it), not a hit in memory."""
    samples = []
    for _ in range(repeats):
        store.recent_states.clear()
        started = time.perf_counter()
        work()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def measure(events: int) -> list[tuple[int, float, float]]:
    game = build(events)
    rows = []
    for seq in (10, game.seq):
        fast = _median_ms(lambda: store.state_at(game, seq), 50)
        slow = _median_ms(lambda: store.state_from_zero(game, seq), 3)
        rows.append((seq, fast, slow))
    return rows
