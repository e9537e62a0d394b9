"""The bot ladder: the server's bots play rated games against one another, so each bot level has
a rating in every two-player game's pool that says how strong it is, on the scale people are
rated on (a level is a player of its own in the pools: `rating_fold.bot_key`).

A round is one rated, public game for every pair of different entrants (each bot at each of its
levels), twice, each entrant sitting first once, so a round is fair to both seats. The games are
made like any other (`games.services.game_create_seated`, bots only, the creator watching), played
by the bot workers and rated by the competition workers as they end. `manage.py bot_ladder` plays
rounds; the levels' iteration budgets, not the clock, decide their moves, so the ratings measure
the levels themselves.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import bots
import rules
from games import services as games_services

# A step clock: a rated game needs one. Bots answer well within it.
LADDER_TIME_CONTROL = {"type": "step", "seconds": 300}

Entrant = tuple[str, int]  # a bot's name and level


def entrants() -> list[Entrant]:
    """Every bot at every level, in catalogue order."""
    return [(name, level) for name, spec in bots.catalog().items() for level in spec.levels]


def pairings(chosen: list[Entrant]) -> list[tuple[Entrant, Entrant]]:
    """Each pair of different entrants twice, each sitting first once."""
    return [seats for pair in combinations(chosen, 2) for seats in (pair, pair[::-1])]


def two_player_games(rules_ids: list[str] | None = None) -> list[str]:
    """The games the ladder plays: those named (checked to exist), else every game two may play."""
    if rules_ids:
        return [rules.get(rules_id).id for rules_id in rules_ids]
    return [game.id for game in rules.catalog().values() if game.min_players <= 2 <= game.max_players]


def ladder_round(*, creator: Any, rules_ids: list[str] | None = None,
                 chosen: list[Entrant] | None = None) -> list[int]:
    """Create one round's rated games; their ids. `creator` (an account) only watches."""
    made = []
    for rules_id in two_player_games(rules_ids):
        for first, second in pairings(chosen or entrants()):
            game = games_services.game_create_seated(
                creator=creator, rules_id=rules_id, players=2, options={},
                time_control=LADDER_TIME_CONTROL, rated=True,
                seats=[{"bot": first[0], "level": first[1]}, {"bot": second[0], "level": second[1]}],
            )
            made.append(game.pk)
    return made
