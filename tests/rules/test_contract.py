"""The contract every rules module in the catalogue keeps, checked through random complete games.

Run for every game, every player count and every single non-default option value: each listed move
applies, seats not to act have nothing to do, replays are exact, dump/load round-trips, views hide
the seed, a determinized sample agrees with the seat's view, the presentation (panels, prompt,
cells the last move touched) is well formed at every position and shows a seat nothing its view
does not, and the game ends.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

import pytest

import rules
from rules import notation
from rules.base import Outcome, Rules
from rules.errors import IllegalMove, InvalidOptions, MalformedMove, NotYourTurn, UnknownRules

GAMES_PER_CASE = 2
MAX_ACTIONS = 30_000
FULL_CHECK_EVERY = 7  # apply every listed move at every 7th position; a sample elsewhere
# Every position of a game's first DENSE_POSITIONS is checked, one in LATER_CHECK_EVERY after:
# a long random game (thousands of actions in a 4-player race to 25) goes on repeating the kinds
# of position it has already shown, and checking each of them cost minutes of the suite.
DENSE_POSITIONS = 400
LATER_CHECK_EVERY = 4
SAMPLED_MOVES = 4


@dataclass(frozen=True)
class Case:
    game: Rules
    players: int
    options: dict[str, Any]

    @property
    def id(self) -> str:
        opts = ",".join(f"{k}={v}" for k, v in self.options.items())
        return f"{self.game.id}-{self.players}p" + (f"-{opts}" if opts else "")


def _option_variants(game: Rules) -> list[dict[str, Any]]:
    variants: list[dict[str, Any]] = [{}]
    for option in game.options:
        values = [True, False] if option.type == "bool" else list(option.choices or ())
        variants += [{option.name: v} for v in values if v != option.default]
    return variants


def _cases() -> list[Case]:
    cases = []
    for game in rules.catalog().values():
        for players in range(game.min_players, game.max_players + 1):
            for options in _option_variants(game):
                try:
                    game.normalize_options(players, options)
                except InvalidOptions:
                    continue  # an option that does not fit this player count
                cases.append(Case(game, players, options))
    return cases


CASES = _cases()


def _json_round_trip(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _check_position(case: Case, state: Any, seed: str, rnd: random.Random, full: bool) -> None:
    game = case.game
    assert game.load(_json_round_trip(game.dump(state))) == state
    acting = game.to_act(state)
    assert acting, "a running game has somebody to act"
    for seat in [None, *range(case.players)]:
        seen = game.view(state, seat)
        text = json.dumps(seen)
        assert seed not in text, f"seat {seat}'s view shows the seed"
        board = game.render_text(state, seat)
        too_wide = [line for line in board.splitlines() if len(line) > 78]
        assert too_wide == [], f"the text board is for mail: lines within 78 columns ({too_wide[:1]})"
    for seat in range(case.players):
        moves = game.legal_moves(state, seat)
        assert _json_round_trip(moves) == moves
        if seat not in acting:
            assert moves == [], f"seat {seat} is not to act but has moves"
            continue
        assert moves, f"seat {seat} is to act but has no move"
        tried = moves if full else rnd.sample(moves, min(SAMPLED_MOVES, len(moves)))
        before = game.dump(state)
        for move in tried:
            after = game.apply(state, seat, move)
            assert game.outcome(after) is not None or game.to_act(after), "a move left nobody to act"
        assert game.dump(state) == before, "apply changed its input"
        assert game.timeout_move(state, seat) in moves, "the timeout move is not a listed move"
        if full:
            _check_notation(game, state, seat, moves, rnd.sample(moves, min(SAMPLED_MOVES, len(moves))))
    _check_determinization(game, state, acting, rnd)


def _check_notation(game: Rules, state: Any, seat: int, moves: list[dict], tried: list[dict]) -> None:
    """Each legal move has its own one-line text, and the text reads back as that move, with
    case and spacing forgiven."""
    texts = [game.describe_move(state, seat, move) for move in moves]
    assert all(isinstance(text, str) and text and "\n" not in text and len(text) <= 120 for text in texts)
    assert len(set(texts)) == len(texts), "two legal moves share a notation"
    for move in tried:
        text = game.describe_move(state, seat, move)
        for reading in notation.readings(text):  # with and without its context ("roll 4:")
            assert game.parse_move(state, seat, reading) == move
        assert game.parse_move(state, seat, f"  {text.upper().replace(' ', '   ')} ") == move


def _check_determinization(game: Rules, state: Any, acting: tuple[int, ...], rnd) -> None:
    seat = rnd.choice(acting)
    seen = game.view(state, seat)
    sampled = game.sample_state(_json_round_trip(seen), seat, random.Random(rnd.random()))
    assert game.view(sampled, seat) == seen, "a determinized state disagrees with the view"
    assert game.legal_moves(sampled, seat) == game.legal_moves(state, seat)
    _check_presentation_is_the_views(game, state, seat, rnd)


PANEL_KEYS = {"seat", "name", "colour", "score", "score_parts", "resources", "notes", "out"}


def _check_presentation(case: Case, state: Any, before: Any, seed: str) -> None:
    """What a page shows, for every seat and a spectator: a panel per seat in seat order, a
    one-line prompt exactly for the seats that must act, touched cells that the board has (in
    the position now or before) and that did change, and one line of how the game was decided
    exactly once it is over."""
    game = case.game
    acting = game.to_act(state)
    for seat in [None, *range(case.players)]:
        shown = game.presentation(state, seat, before)
        assert _json_round_trip(shown) == shown and set(shown) == {"panels", "prompt", "touched", "ending"}
        assert seed not in json.dumps(shown), f"seat {seat}'s presentation shows the seed"
        panels = shown["panels"]
        assert [p["seat"] for p in panels] == list(range(case.players)), "a panel per seat, in seat order"
        for p in panels:
            assert set(p) == PANEL_KEYS, set(p) ^ PANEL_KEYS
            assert p["name"] and isinstance(p["name"], str) and p["colour"] and isinstance(p["colour"], str)
            assert p["score"] is None or isinstance(p["score"], (int, float))
            assert isinstance(p["out"], bool) and all(isinstance(note, str) for note in p["notes"])
            for part in (*p["score_parts"], *p["resources"]):
                assert set(part) == {"label", "value"} and part["label"] and isinstance(part["value"], (str, int, float))
        prompt = shown["prompt"]
        if seat in acting:
            assert isinstance(prompt, str) and prompt.strip() and "\n" not in prompt and len(prompt) <= 160, prompt
        else:
            assert prompt is None, f"seat {seat} is not to act but is prompted: {prompt}"
        ending = shown["ending"]
        if game.outcome(state) is None:
            assert ending is None, f"an ending before the end: {ending}"
        else:
            assert isinstance(ending, str) and ending.strip() and "\n" not in ending and len(ending) <= 160, ending
        touched = shown["touched"]
        now, then = game.cells(state, seat), (game.cells(before, seat) if before is not None else {})
        assert all(isinstance(name, str) for name in touched) and len(set(touched)) == len(touched)
        assert all(now.get(name) != then.get(name) for name in touched), "a touched cell did not change"
        if before is None:
            assert touched == []


def _check_presentation_is_the_views(game: Rules, state: Any, seat: int, rnd) -> None:
    """The panels and the prompt come from what the seat sees: a determinized state (every
    secret of the others drawn afresh) shows the seat the same."""
    sampled = game.sample_state(_json_round_trip(game.view(state, seat)), seat, random.Random(rnd.random()))
    assert game.presentation(sampled, seat) == game.presentation(state, seat), "the presentation shows a secret"


def test_every_game_implements_the_presentation() -> None:
    for game in rules.catalog().values():
        for part in ("panels", "prompt", "cells"):
            assert getattr(type(game), part) is not getattr(Rules, part), f"{game.id} does not implement {part}"


def _play(case: Case, seed: str, rnd: random.Random) -> tuple[Any, list[tuple[int, dict]]]:
    game = case.game
    state = game.setup(case.players, case.options, seed)
    record: list[tuple[int, dict]] = []
    before = None
    for step in range(MAX_ACTIONS):
        over = game.outcome(state) is not None
        checked = over or step < DENSE_POSITIONS or step % LATER_CHECK_EVERY == 0
        if checked:
            _check_presentation(case, state, before, seed)
        if over:
            return state, record
        if checked:
            _check_position(case, state, seed, rnd, full=step % FULL_CHECK_EVERY == 0)
        seat = rnd.choice(game.to_act(state))
        move = rnd.choice(game.legal_moves(state, seat))
        after = game.apply(state, seat, move)
        public = game.public_move(state, seat, move, after)
        assert _json_round_trip(public) == public and public["type"] == move["type"]
        if not game.hidden_information:
            assert public.items() >= move.items(), "a game without secrets hid part of a move"
        record.append((seat, move))
        before, state = state, after
    pytest.fail(f"{case.id}: no end after {MAX_ACTIONS} actions")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_random_games_keep_the_contract(case: Case) -> None:
    game = case.game
    for n in range(GAMES_PER_CASE):
        seed = f"{random.Random(n).getrandbits(128):032x}"
        rnd = random.Random(f"{case.id}:{n}")
        final, record = _play(case, seed, rnd)
        _check_finished(game, final, case.players)
        replayed = game.setup(case.players, case.options, seed)
        for seat, move in record:
            replayed = game.apply(replayed, seat, _json_round_trip(move))
        assert replayed == final, "replaying the same seed and moves gave another game"


def _check_finished(game: Rules, state: Any, players: int) -> None:
    result = game.outcome(state)
    assert isinstance(result, Outcome)
    assert len(result.scores) == players
    assert set(result.winners) <= set(range(players))
    assert game.to_act(state) == ()
    assert all(game.legal_moves(state, seat) == [] for seat in range(players))
    assert game.load(_json_round_trip(game.dump(state))) == state
    assert _json_round_trip(result.as_dict()) == result.as_dict()
    assert game.render_text(state, None).strip()


@pytest.mark.parametrize("game", list(rules.catalog().values()), ids=lambda g: g.id)
def test_setup_is_deterministic_and_validates(game: Rules) -> None:
    players = game.min_players
    assert game.setup(players, {}, "seed-a") == game.setup(players, {}, "seed-a")
    with pytest.raises(InvalidOptions) as error:
        game.setup(players, {"no_such_option": 1}, "seed-a")
    assert error.value.option == "no_such_option"
    with pytest.raises(InvalidOptions):
        game.setup(game.max_players + 1, {}, "seed-a")
    described = _json_round_trip(game.describe())
    assert described["id"] == game.id and described["min_players"] == players
    assert all(isinstance(described[key], bool) for key in ("chance", "hidden_information", "simultaneous"))
    assert described["version"] == game.version >= 1


@pytest.mark.parametrize("game", list(rules.catalog().values()), ids=lambda g: g.id)
def test_bad_moves_are_refused_with_codes(game: Rules) -> None:
    state = game.setup(game.min_players, {}, "seed-b")
    seat = game.to_act(state)[0]
    for bad in ("e2e4", None, [], {}, {"type": 7}, {"type": "no_such_move"}):
        with pytest.raises((MalformedMove, IllegalMove)) as error:
            game.apply(state, seat, bad)
        assert error.value.code and error.value.message
    for bad in ("", "   ", "no such move at all", 7):
        with pytest.raises(MalformedMove) as error:
            game.parse_move(state, seat, bad)
        assert error.value.code == "unknown_notation"
    idle = [s for s in range(game.min_players) if s not in game.to_act(state)]
    for other in idle:
        with pytest.raises(NotYourTurn):
            game.apply(state, other, game.legal_moves(state, seat)[0])


def test_catalog_lists_every_game_by_id() -> None:
    for game_id, game in rules.catalog().items():
        assert rules.get(game_id) is game
    with pytest.raises(UnknownRules):
        rules.get("chess")
