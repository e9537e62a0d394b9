"""Ratings as a fold over finished games: pure Python over the dicts `games.selectors.finished_games`
gives, so the worker that rates a game as it ends and the command that rebuilds every rating from
the log run the same code, in the same order, and get the same numbers.

Which games count: rated public ones (the creator's choice) with a time class, whose every seat
had a player, that were played out. A game aborted before everyone moved, cancelled before it started
or abandoned by everyone counts for nobody. So does a game a seat's player never came to (every
turn of theirs timed out or was played by a stand-in bot, nothing of theirs in the log:
`games.selectors.seats_absent`): lichess aborts a game whose player does not make a first move,
and a forfeit is not rated under FIDE's rules, which is how a tournament scores such a game; a
win nobody played for would move both ratings on nothing. A seat that played and then resigned,
forfeited or lost on time scores what the result gives it, which is a loss.

A private game counts for no rating and no tally (`games` refuses to make one rated). To anyone
who may not see it a private game does not exist, and ratings are shown to everyone: on
profiles, leaderboards, seeks and tournament entries. Any number a private game moved would tell
a stranger that it was played (a rating changed with no public game behind it) and how it went
(up or down). A second rating, folded from every game and shown only to its player, would keep
the secret but give the player two numbers that disagree, while pairing and leaderboards would
still have to use the public one: private games would change nothing anybody plays by. And a
rating others are ranked against should be one they can audit game by game, where private games
would let two accounts feed one of them wins nobody can see. So a private game is casual; a
rated game with a friend is played in public. Games made private and rated before this rule
count for nothing once the ratings are rebuilt (`manage.py ratings_rebuild`).

A pool is (rules, time class, system): Glicko-2 rates two-player games, Plackett-Luce three and
four. Places come from the outcome's ranking (`ratings.places`): the winners the rules named
first, then the rest by score, so a seat that resigned ahead on the board still lost. For the win/draw/loss tally, a seat alone in first place won, one sharing first drew, and
every other seat lost.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import Any

from competition import ratings
from games import time_controls

TIME_CLASSES = (time_controls.STEP, time_controls.CORRESPONDENCE, time_controls.BANK)
# How `games` ends a game nobody played out (games.services.life): it counts for no rating and
# is worth no tournament points.
NOT_PLAYED_OUT = ("aborted", "cancelled", "abandoned")
NO_SHOW = "no_show"  # a seat's player never came (`why_not_counted`)
DAY = 86_400.0

Pool = tuple[str, str, str]  # rules, time class, system


@dataclass(frozen=True)
class Standing:
    """A player's place in a pool between games."""

    player: str
    name: str
    is_bot: bool
    user_id: int | None
    skill: ratings.Skill
    last_played_at: dt.datetime
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0


def time_class_of(time_control: dict | None) -> str | None:
    kind = (time_control or {}).get("type")
    return kind if kind in TIME_CLASSES else None


def pool_of(game: dict[str, Any]) -> Pool:
    return game["rules"], time_class_of(game["time_control"]) or "", ratings.system_for(game["players"])


def why_not_counted(game: dict[str, Any]) -> str:
    """Empty if the game counts; else the reason it does not."""
    if not game["rated"]:
        return "casual"
    if game.get("private"):
        return "private"
    if time_class_of(game["time_control"]) is None:
        return "no_time_control"
    result = game.get("result") or {}
    if result.get("reason") in NOT_PLAYED_OUT:
        return result["reason"]
    if len(game["seats"]) != game["players"] or len(result.get("scores") or []) != game["players"]:
        return "seats_missing"
    if len({player_of(seat)[0] for seat in game["seats"]}) != game["players"]:
        return "same_player_twice"
    if game.get("absent"):
        return NO_SHOW
    return ""


def person(user_id: int) -> str:
    """An account's key in the pools (the server's bots are `bot:<name>:<level>`)."""
    return f"u{user_id}"


def bot_key(bot: str, level: int) -> str:
    """A server bot's key in the pools: each level is a player of its own."""
    return f"bot:{bot}:{level}"


def player_of(seat: dict[str, Any]) -> tuple[str, str, bool, int | None]:
    """(key, display name, is a bot, user id) of the seat's player."""
    if seat["user_id"] is not None:
        return person(seat["user_id"]), seat["username"], seat["is_bot"], seat["user_id"]
    return bot_key(seat["bot"], seat["level"]), f"{seat['bot']} (level {seat['level']})", True, None


def order_key(game: dict[str, Any]) -> tuple[dt.datetime, int]:
    return game["finished_at"], game["id"]


def fold_game(game: dict[str, Any], standings: dict[str, Standing]) -> list[dict[str, Any]]:
    """Rate one counted game: updates `standings` (the pool's, by player key; missing players
    start as newcomers) and returns one change per seat, as `RatingChange` fields."""
    rules_id, time_class, system = pool_of(game)
    finished_at = game["finished_at"]
    befores = [_standing_before(seat, standings, system, finished_at) for seat in game["seats"]]
    ranks = ratings.places(game["result"])
    afters = ratings.rate_game([standing.skill for standing in befores], ranks)
    changes = []
    for seat, before, after, rank in zip(game["seats"], befores, afters, ranks):
        outcome = _outcome(rank, ranks)
        standings[before.player] = replace(
            before, skill=after, last_played_at=finished_at, games=before.games + 1,
            wins=before.wins + (outcome == "win"), draws=before.draws + (outcome == "draw"),
            losses=before.losses + (outcome == "loss"),
        )
        changes.append({
            "game_id": game["id"], "finished_at": finished_at, "rules": rules_id, "time_class": time_class,
            "system": system, "player": before.player, "user_id": before.user_id, "seat": seat["index"],
            "rank": rank, "outcome": outcome, "rating_before": before.skill.rating,
            "deviation_before": before.skill.deviation, "rating_after": after.rating,
            "deviation_after": after.deviation, "mu": after.mu, "sigma": after.sigma, "volatility": after.volatility,
        })
    return changes


def _standing_before(seat: dict[str, Any], standings: dict[str, Standing], system: str,
                     finished_at: dt.datetime) -> Standing:
    key, name, is_bot, user_id = player_of(seat)
    known = standings.get(key)
    if known is None:
        return Standing(key, name, is_bot, user_id, ratings.newcomer(system), finished_at)
    # The doubt grows with the time since the player's last game in this pool.
    periods = max(0.0, (finished_at - known.last_played_at).total_seconds()) / DAY / ratings.PERIOD_DAYS
    return replace(known, name=name, is_bot=is_bot, skill=ratings.aged(known.skill, periods))


def _outcome(rank: int, ranks: list[int]) -> str:
    if rank != 1:
        return "loss"
    return "win" if ranks.count(1) == 1 else "draw"


def fold_all(games: list[dict[str, Any]]) -> tuple[dict[Pool, dict[str, Standing]], list[dict[str, Any]]]:
    """Every pool's standings and every change, from counted games in their finishing order."""
    pools: dict[Pool, dict[str, Standing]] = {}
    changes: list[dict[str, Any]] = []
    for game in sorted(games, key=order_key):
        if why_not_counted(game):
            continue
        changes.extend(fold_game(game, pools.setdefault(pool_of(game), {})))
    return pools, changes
