"""Who takes the first turn. A game whose book draws the first player offers `first_player`
(`rules.options`): `seat_0` gives seat 0 the first turn and leaves the rest of the game's chance as
the seed made it. A two-player tournament relies on it to give out the first turn as colours."""

from __future__ import annotations

import pytest

import rules
from rules.options import FIRST_PLAYER, SEAT_0

SEEDS = [f"first:{n}" for n in range(24)]


def _drawing() -> list:
    return [game for game in rules.catalog().values() if FIRST_PLAYER in {option.name for option in game.options}]


def _counts(game) -> range:
    return range(game.min_players, game.max_players + 1)


def test_the_games_whose_book_draws_who_starts_offer_the_option():
    assert {game.id for game in _drawing()} == {"scavenge", "terrafex"}


@pytest.mark.parametrize("game", rules.catalog().values(), ids=lambda game: game.id)
def test_every_two_player_game_can_give_seat_0_the_first_turn(game):
    """A tournament's pairing gives the first seat to balance who starts: in a game of two, either
    seat 0 always starts, or the game offers the option that makes it so."""
    if not game.min_players <= 2 <= game.max_players:
        pytest.skip("no game of two")
    options = {FIRST_PLAYER: SEAT_0} if game in _drawing() else {}
    for seed in SEEDS:
        assert 0 in game.to_act(game.setup(2, options, seed)), seed


@pytest.mark.parametrize("game", _drawing(), ids=lambda game: game.id)
def test_seat_0_starts_when_asked_and_the_draw_decides_by_default(game):
    for players in _counts(game):
        drawn = {game.to_act(game.setup(players, None, seed)) for seed in SEEDS}
        fixed = {game.to_act(game.setup(players, {FIRST_PLAYER: SEAT_0}, seed)) for seed in SEEDS}
        assert fixed == {(0,)}
        assert len(drawn) == players  # the book's way stays the default: every seat starts some games


@pytest.mark.parametrize("game", _drawing(), ids=lambda game: game.id)
def test_where_the_draw_gave_seat_0_anyway_the_option_changes_nothing(game):
    """The draw is made either way, so the chance after it (dice, a layout) is the seed's."""
    compared = 0
    for players in _counts(game):
        for seed in SEEDS:
            drawn = game.setup(players, None, seed)
            if game.to_act(drawn) == (0,):
                assert game.dump(game.setup(players, {FIRST_PLAYER: SEAT_0}, seed)) == game.dump(drawn), seed
                compared += 1
    assert compared >= 5
