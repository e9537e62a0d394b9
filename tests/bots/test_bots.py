"""The bots on the toy games: the interface, legal and reproducible moves, wins in one, honesty."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

import bots
from bots import arena, heuristics, mcts, registry
from rules.base import Outcome
from rules.rng import Rng
from tests.bots.toys import GUESS, NIM, RACE, TOYS, GuessState, NimState, RaceState

SMALL = {"bot": "mcts", "level": 1}  # level 1 keeps the tests quick


@pytest.fixture(autouse=True)
def iterations_only(monkeypatch):
    """The levels' budgets without their wall-clock caps: a level's iterations make its decision
    reproducible, and the cap only guards a slow machine; on a loaded one (a parallel suite on two
    cores) it cut searches short at different iterations, and the same seed chose two moves."""
    for level, budget in registry.MCTS_BUDGETS.items():
        monkeypatch.setitem(registry.MCTS_BUDGETS, level, dataclasses.replace(budget, milliseconds=None))


def _view(game, state, seat):
    return json.loads(json.dumps(game.view(state, seat)))


# --- the interface -----------------------------------------------------------------------------


def test_catalog_describes_every_bot_as_json() -> None:
    listed = bots.catalog()
    assert list(listed) == ["greedy", "mcts", "random"]
    for name, spec in listed.items():
        described = json.loads(json.dumps(spec.describe()))
        assert described["name"] == spec.name == name
        assert described["levels"] == list(spec.levels)
        assert spec.default_level in spec.levels
        assert set(described["level_descriptions"]) == {str(n) for n in spec.levels}
    assert listed["mcts"].levels == (1, 2, 3) and listed["random"].levels == (1,)
    assert listed["greedy"].levels == (1,)


@pytest.mark.parametrize("name", ["alphazero", "", None, 3])
def test_an_unknown_bot_is_refused(name) -> None:
    state = NIM.setup(2, {}, "s")
    with pytest.raises(bots.UnknownBot) as error:
        bots.choose_move(NIM, NIM.view(state, 0), 0, bot=name, level=1, seed="x")
    assert error.value.code == "unknown_bot"


@pytest.mark.parametrize("bot, level", [("random", 2), ("greedy", 2), ("mcts", 0), ("mcts", 4), ("mcts", True),
                                        ("mcts", "2")])
def test_a_bad_level_is_refused(bot, level) -> None:
    state = NIM.setup(2, {}, "s")
    with pytest.raises(bots.InvalidLevel) as error:
        bots.choose_move(NIM, NIM.view(state, 0), 0, bot=bot, level=level, seed="x")
    assert error.value.code == "invalid_level"
    assert error.value.as_dict()["code"] == "invalid_level"


@pytest.mark.parametrize("bot", ["random", "greedy", "mcts"])
def test_a_seat_with_nothing_to_do_gets_no_move(bot) -> None:
    state = NIM.setup(2, {}, "s")
    with pytest.raises(bots.NoMoveToChoose) as error:
        bots.choose_move(NIM, NIM.view(state, 1), 1, bot=bot, level=1, seed="x")
    assert error.value.code == "no_move_to_choose"


# --- legal and reproducible --------------------------------------------------------------------


def _positions(game, players, seed, count):
    """Positions met in a random playout, each with a seat to act."""
    rnd = random.Random(seed)
    state = game.setup(players, {}, seed)
    found = []
    while game.outcome(state) is None and len(found) < count:
        seat = rnd.choice(game.to_act(state))
        found.append((state, seat))
        state = game.apply(state, seat, rnd.choice(game.legal_moves(state, seat)))
    return found


CASES = [(game, players) for game in TOYS for players in (2, 3) if players <= game.max_players]


@pytest.mark.parametrize("bot", ["random", "greedy", "mcts"])
@pytest.mark.parametrize("game, players", CASES, ids=lambda v: getattr(v, "id", str(v)))
def test_bots_always_return_a_legal_move(game, players, bot) -> None:
    for n, (state, seat) in enumerate(_positions(game, players, f"legal-{bot}", 12)):
        move = bots.choose_move(game, _view(game, state, seat), seat, bot=bot, level=1,
                                seed=f"s{n}")
        assert move in game.legal_moves(state, seat)


@pytest.mark.parametrize("bot", ["random", "greedy", "mcts"])
@pytest.mark.parametrize("game", TOYS, ids=lambda g: g.id)
def test_the_same_seed_gives_the_same_move(game, bot) -> None:
    for state, seat in _positions(game, 2, "same-seed", 5):
        view = _view(game, state, seat)
        moves = {json.dumps(bots.choose_move(game, view, seat, bot=bot, level=1, seed="same"))
                 for _ in range(3)}
        assert len(moves) == 1


def test_different_seeds_can_give_different_moves() -> None:
    state = NIM.setup(2, {"pile": 30}, "s")
    view = NIM.view(state, 0)
    moves = {bots.choose_move(NIM, view, 0, bot="random", level=1, seed=str(n))["count"]
             for n in range(30)}
    assert moves == {1, 2, 3}


# --- wins in one ------------------------------------------------------------------------------


def _winning_positions():
    rng = Rng("hand-built")
    return [
        pytest.param(NIM, NimState(2, 3, 1), 1, {"type": "take", "count": 3}, id="nim"),
        pytest.param(NIM, NimState(3, 2, 2), 2, {"type": "take", "count": 2}, id="nim-3p"),
        pytest.param(RACE, RaceState((8, 2), 0, 3, rng), 0, {"type": "step", "count": 2},
                     id="race"),
        pytest.param(GUESS, GuessState((2, 1), 1, ((), (0, 1, 3)), None, rng), 1,
                     {"type": "guess", "value": 2}, id="guess"),
    ]


@pytest.mark.parametrize("game, state, seat, winning", _winning_positions())
@pytest.mark.parametrize("level", [1, 2])
def test_mcts_takes_an_immediate_win(game, state, seat, winning, level) -> None:
    view = _view(game, state, seat)
    for seed in ("a", "b", "c"):
        assert bots.choose_move(game, view, seat, bot="mcts", level=level, seed=seed) == winning


@pytest.mark.parametrize("game, state, seat, winning", _winning_positions())
def test_the_decisive_check_samples_as_often_as_the_descriptor_says_it_must(
    game, state, seat, winning, monkeypatch
) -> None:
    """No chance and no hidden information: every sample is the view itself, so one will do."""
    samples = []
    original = type(game).sample_state
    def counted(self, *args):
        samples.append(args)
        return original(self, *args)

    monkeypatch.setattr(type(game), "sample_state", counted)
    budget = mcts.Budget(iterations=10, milliseconds=1000)
    search = mcts.Search(game, _view(game, state, seat), seat, budget, random.Random("s"))
    assert search.decisive_move(game.legal_moves(state, seat)) == winning
    unknowns = game.chance or game.hidden_information
    assert len(samples) == (mcts.DECISIVE_CHECK_SAMPLES if unknowns else 1)


def test_the_search_alone_finds_the_win_without_the_decisive_check(monkeypatch) -> None:
    monkeypatch.setattr(mcts, "DECISIVE_CHECK_SAMPLES", 0)  # no sample: the check never fires
    monkeypatch.setattr(mcts.Search, "decisive_move", lambda self, moves: None)
    state = NimState(2, 3, 1)
    for seed in ("a", "b", "c"):
        move = bots.choose_move(NIM, NIM.view(state, 1), 1, bot="mcts", level=1, seed=seed)
        assert move == {"type": "take", "count": 3}


def test_mcts_plays_nim_perfectly_from_a_won_position() -> None:
    # With 7 stones the mover wins by leaving a multiple of 4: take 3.
    state = NimState(2, 7, 0)
    move = bots.choose_move(NIM, NIM.view(state, 0), 0, bot="mcts", level=2, seed="p")
    assert move == {"type": "take", "count": 3}


# --- honesty: hidden information is sampled, never read ----------------------------------------


def test_the_guess_does_not_depend_on_the_hidden_number() -> None:
    """Same view, different hidden numbers: the bot cannot tell them apart."""
    rng = Rng("x")
    for seed in ("a", "b", "c", "d"):
        moves = set()
        for hidden in (0, 2, 3):
            state = GuessState((1, hidden), 0, ((1,), ()), None, rng)
            view = _view(GUESS, state, 0)
            moves.add(json.dumps(bots.choose_move(GUESS, view, 0, seed=seed, **SMALL)))
        assert len(moves) == 1


def test_guesses_hit_only_at_chance_rate() -> None:
    state = GuessState((1, 3), 0, ((), ()), None, Rng("x"))
    view = _view(GUESS, state, 0)
    hits = sum(bots.choose_move(GUESS, view, 0, seed=str(n), **SMALL)["value"] == 3
               for n in range(40))
    assert hits < 25  # a cheat would hit 40 times; chance is about 10


def test_every_search_iteration_starts_from_a_sample_of_the_view(monkeypatch) -> None:
    seen = []
    original = type(GUESS).sample_state

    def spying(self, view, seat, rng):
        seen.append((json.dumps(view, sort_keys=True), seat))
        return original(self, view, seat, rng)

    monkeypatch.setattr(type(GUESS), "sample_state", spying)
    state = GuessState((2, 0), 1, ((), (3,)), None, Rng("x"))
    view = _view(GUESS, state, 1)
    bots.choose_move(GUESS, view, 1, seed="s", **SMALL)
    assert len(seen) > mcts.DECISIVE_CHECK_SAMPLES
    assert set(seen) == {(json.dumps(view, sort_keys=True), 1)}


def test_a_simultaneous_step_is_played_for_either_seat() -> None:
    state = GUESS.setup(2, {}, "sim")
    assert GUESS.to_act(state) == (0, 1)
    for seat in (0, 1):
        move = bots.choose_move(GUESS, _view(GUESS, state, seat), seat, seed="s", **SMALL)
        assert move["type"] == "hide"


# --- search internals ---------------------------------------------------------------------------


def test_rewards_share_wins_and_keep_a_little_for_the_margin() -> None:
    assert mcts.rewards(Outcome((3.0, 1.0), (0,), "x")) == pytest.approx([1.0, 0.0])
    assert mcts.rewards(Outcome((2.0, 2.0, 0.0), (0, 1), "x")) == pytest.approx([0.55, 0.55, 0.0])
    assert mcts.rewards(Outcome((1.0, 1.0), (), "draw")) == pytest.approx([0.5, 0.5])


def test_the_millisecond_cap_stops_the_search() -> None:
    ticks = iter(range(0, 10_000, 1))  # a fake clock: each reading one second later
    budget = mcts.Budget(iterations=1000, milliseconds=3500)
    search = mcts.Search(NIM, NIM.view(NimState(2, 30, 0), 0), 0, budget, random.Random(1),
                         clock=lambda: next(ticks))
    search.run()
    assert search.root.visits == 4


def test_a_game_without_heuristics_has_none() -> None:
    assert heuristics.for_rules("toy_nim") is None
    assert heuristics.module_name("space-junkyard") == "bots.heuristics.space_junkyard"


# --- whole games --------------------------------------------------------------------------------


@pytest.mark.parametrize("game, players", CASES, ids=lambda v: getattr(v, "id", str(v)))
def test_a_game_of_bots_only_finishes(game, players) -> None:
    seats = {s: arena.Seat("mcts" if s % 2 else "random", 1) for s in range(players)}
    match = arena.play(game, players, {}, "whole", seats)
    assert match.outcome is not None and game.to_act(match.state) == ()


def test_mcts_beats_random_at_the_race() -> None:
    wins = 0  # level 1 wins most seeded races; dice decide the rest
    for n in range(20):
        mcts_seat = n % 2
        seats = {mcts_seat: arena.Seat("mcts", 1), 1 - mcts_seat: arena.Seat("random", 1)}
        match = arena.play(RACE, 2, {}, f"race-{n}", seats)
        wins += match.outcome.winners == (mcts_seat,)
    assert wins >= 14


def test_move_keys_tell_apart_what_json_tells_apart() -> None:
    from bots.mcts import move_key

    moves = [{"type": "step", "dir": "N"}, {"type": "step", "dir": "S"},
             {"at": [0, 1], "type": "connect"}, {"at": [1, 0], "type": "connect"},
             {"flag": True}, {"flag": 1}, {"path": [[0, 1], [1, 1]]}, {"path": [[1, 1], [0, 1]]},
             {"pick": {"a": 1}}, {"pick": {"a": 2}}]
    keys = [move_key(move) for move in moves]
    assert len(set(keys)) == len(moves)
    assert move_key({"dir": "N", "type": "step"}) == keys[0]  # the order of the keys is no matter
