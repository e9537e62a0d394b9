"""The analysis itself: the game's bot over every move of a finished game, from the mover's view.

For each move (seq, seat, move) the bot evaluates, from what the mover saw and nothing else
(`games.positions`: the rules' view over the log prefix):
- `before`: the position the mover faced, and the move it would have preferred there;
- `after`: the position just after the move, still from the mover's view.
Both are the mover's win expectation in [0, 1] (`bots.evaluation`). The drop `before - after`
marks the move: a `mistake` from a quarter of the range, an `inaccuracy` from an eighth. A move
that was the only legal one, or the one the bot preferred, is never marked: what it lost was
lost before it, or is the search's noise.

Each search's randomness is seeded from the game, the seq and the side of the move, so the same
game analysed twice with the same budget in iterations gives the same marks (the millisecond cap,
when it cuts a search short on a busy machine, is the one exception).

The move played and the preferred one are stored in notation (`text`, `preferred_text`) and as
the message the rules wrote it with (`rules.words.message_data`): the analysis is run once, and
read later in each reader's language (`analysis.selectors`).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any, Callable

from bots.evaluation import evaluate
from bots.mcts import Budget, move_key
from games.positions import FinishedGame, MoveSeen
from rules import notation
from rules.base import Rules
from rules.words import message_data

VALUE_RANGE = (0.0, 1.0)
MISTAKE_DROP = 0.25  # a quarter of the range
INACCURACY_DROP = 0.125  # an eighth


def mark_of(*, before: float, after: float, choices: int, preferred_played: bool) -> str | None:
    if choices <= 1 or preferred_played:
        return None
    drop = before - after
    if drop >= MISTAKE_DROP:
        return "mistake"
    if drop >= INACCURACY_DROP:
        return "inaccuracy"
    return None


def position_rng(game_id: int, seq: int, side: str) -> random.Random:
    material = f"scrapyard-analysis:{game_id}:{seq}:{side}"
    return random.Random(hashlib.sha256(material.encode()).hexdigest())


def analyse(game: FinishedGame, budget: Budget, after_each: Callable[[], None] = lambda: None) -> list[dict[str, Any]]:
    """Every move of the game, analysed; `after_each` runs after each (the worker renews its lease)."""
    analysed = []
    for seen in game.moves:
        analysed.append(analyse_move(game.rules, game.game_id, seen, budget))
        after_each()
    return analysed


def analyse_move(game_rules: Rules, game_id: int, seen: MoveSeen, budget: Budget) -> dict[str, Any]:
    before = evaluate(game_rules, seen.before, seen.seat, budget, position_rng(game_id, seen.seq, "before"))
    after = evaluate(game_rules, seen.after, seen.seat, budget, position_rng(game_id, seen.seq, "after"))
    preferred = before.preferred
    preferred_played = preferred is not None and move_key(preferred) == move_key(seen.move)
    preferred_text = _text(game_rules, game_id, seen, preferred)
    return {
        "seq": seen.seq,
        "seat": seen.seat,
        "move": seen.move,
        "text": seen.text,
        "text_message": message_data(seen.text),  # to be read in any reader's words (`selectors`)
        "before": before.value,
        "after": after.value,
        "drop": round(before.value - after.value, 4),
        "preferred": preferred,
        "preferred_text": preferred_text,
        "preferred_message": message_data(preferred_text),
        "choices": before.choices,
        "mark": mark_of(before=before.value, after=after.value, choices=before.choices,
                        preferred_played=preferred_played),
    }


def _text(game_rules: Rules, game_id: int, seen: MoveSeen, move: dict[str, Any] | None) -> str | None:
    """The preferred move in the rules' notation, read in a state drawn from the mover's view."""
    if move is None:
        return None
    try:
        state = game_rules.sample_state(seen.before, seen.seat, position_rng(game_id, seen.seq, "notation"))
        return game_rules.describe_move(state, seen.seat, move)
    except Exception:  # a notation that needs what the view hides: the fields say it
        return notation.fields_text(move)
