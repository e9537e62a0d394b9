"""Three toy games, each a full `Rules`, small enough that a bot's right move is obvious.

- Nim (2-3 players): take 1-3 stones from one pile; who takes the last stone wins. Perfect
  information, no chance; N players.
- Race (2 players): the die (1-3) for the seat to move is shown; step 1..roll squares, never past
  square 10; who lands exactly on 10 wins. Future dice are hidden chance.
- Guess (2 players): both seats hide a number 0-3 at the same time (a simultaneous step), then take
  turns guessing the other's number; a wrong guess is public, a right one wins. The opponent's
  number is hidden information; the first guesser is drawn from the seed.

Forfeit in all three: the game ends and every other seat shares the win.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from rules.base import Outcome, Rules
from rules.errors import IllegalMove, MalformedMove, NotYourTurn
from rules.fields import require_mapping
from rules.options import Option
from rules.rng import Rng
from rules.values import commitment


def _fresh_seed(rng: random.Random) -> str:
    return f"{rng.getrandbits(128):032x}"


def _count(move: dict, field: str = "count") -> int:
    value = move.get(field)
    if isinstance(value, bool) or not isinstance(value, int):
        raise MalformedMove(f"{move['type']!r} needs a whole number {field!r}", f"bad_{field}")
    return value


def _forfeit_outcome(players: int, seat: int) -> Outcome:
    others = tuple(s for s in range(players) if s != seat)
    return Outcome(tuple(0.0 if s == seat else 1.0 for s in range(players)), others, "forfeit")


# --- Nim ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NimState:
    players: int
    pile: int
    turn: int
    winner: int | None = None
    forfeited: int | None = None


class Nim(Rules):
    id = "toy_nim"
    title = "Nim"
    min_players = 2
    max_players = 3
    options = (Option("pile", "int", 10, "stones at the start", minimum=1, maximum=40),)

    def setup(self, players, options, seed):
        chosen = self.normalize_options(players, options)
        return NimState(players, chosen["pile"], 0)

    def to_act(self, state):
        return () if self.outcome(state) else (state.turn,)

    def legal_moves(self, state, seat):
        if seat not in self.to_act(state):
            return []
        return [{"type": "take", "count": k} for k in range(1, min(3, state.pile) + 1)]

    def apply(self, state, seat, move):
        move = require_mapping(move)
        if move["type"] != "take":
            raise MalformedMove(f"unknown move type {move['type']!r}", "unknown_move_type")
        count = _count(move)
        if seat not in self.to_act(state):
            raise NotYourTurn(f"seat {seat} may not move now")
        if not 1 <= count <= min(3, state.pile):
            raise IllegalMove(f"cannot take {count} from a pile of {state.pile}", "out_of_range")
        pile = state.pile - count
        winner = seat if pile == 0 else None
        return NimState(state.players, pile, (seat + 1) % state.players, winner)

    def view(self, state, seat):
        return {"players": state.players, "pile": state.pile, "turn": state.turn,
                "winner": state.winner, "forfeited": state.forfeited}

    def outcome(self, state):
        if state.forfeited is not None:
            return _forfeit_outcome(state.players, state.forfeited)
        if state.winner is None:
            return None
        scores = tuple(1.0 if s == state.winner else 0.0 for s in range(state.players))
        return Outcome(scores, (state.winner,), "last_stone")

    def timeout_move(self, state, seat):
        return {"type": "take", "count": 1}

    def forfeit(self, state, seat):
        return replace(state, forfeited=seat)

    def render_text(self, state, seat):
        return f"pile {state.pile}, seat {state.turn} to take"

    def dump(self, state):
        return self.view(state, None)

    def load(self, data):
        return NimState(**data)

    def sample_state(self, view, seat, rng):
        return self.load(view)  # nothing is hidden


# --- Race --------------------------------------------------------------------------------------

GOAL = 10


@dataclass(frozen=True)
class RaceState:
    positions: tuple[int, ...]
    turn: int
    roll: int
    rng: Rng
    forfeited: int | None = None


class Race(Rules):
    id = "bot_toy_race"
    chance = True
    title = "Race"
    min_players = 2
    max_players = 2

    def setup(self, players, options, seed):
        self.normalize_options(players, options)
        roll, rng = Rng(seed).between(1, 3)
        return RaceState((0,) * players, 0, roll, rng)

    def to_act(self, state):
        return () if self.outcome(state) else (state.turn,)

    def legal_moves(self, state, seat):
        if seat not in self.to_act(state):
            return []
        room = GOAL - state.positions[seat]
        return [{"type": "step", "count": k} for k in range(1, min(state.roll, room) + 1)]

    def apply(self, state, seat, move):
        move = require_mapping(move)
        if move["type"] != "step":
            raise MalformedMove(f"unknown move type {move['type']!r}", "unknown_move_type")
        count = _count(move)
        if seat not in self.to_act(state):
            raise NotYourTurn(f"seat {seat} may not move now")
        if not 1 <= count <= min(state.roll, GOAL - state.positions[seat]):
            raise IllegalMove(f"cannot step {count} with a roll of {state.roll}", "out_of_range")
        positions = list(state.positions)
        positions[seat] += count
        roll, rng = state.rng.between(1, 3)
        return RaceState(tuple(positions), 1 - seat, roll, rng)

    def view(self, state, seat):
        return {"positions": list(state.positions), "turn": state.turn, "roll": state.roll,
                "forfeited": state.forfeited}

    def outcome(self, state):
        players = len(state.positions)
        if state.forfeited is not None:
            return _forfeit_outcome(players, state.forfeited)
        for seat, square in enumerate(state.positions):
            if square == GOAL:
                scores = tuple(float(p) for p in state.positions)
                return Outcome(scores, (seat,), "goal")
        return None

    def timeout_move(self, state, seat):
        return {"type": "step", "count": 1}

    def forfeit(self, state, seat):
        return replace(state, forfeited=seat)

    def render_text(self, state, seat):
        return f"squares {state.positions}, seat {state.turn} rolled {state.roll}"

    def dump(self, state):
        return {**self.view(state, None), "rng": state.rng.dump()}

    def load(self, data):
        return RaceState(tuple(data["positions"]), data["turn"], data["roll"],
                         Rng.load(data["rng"]), data["forfeited"])

    def sample_state(self, view, seat, rng):
        # Future dice are the hidden part: a fresh seed redraws them.
        return self.load({**view, "rng": {"seed": _fresh_seed(rng), "drawn": 0}})


# --- Guess -------------------------------------------------------------------------------------

VALUES = (0, 1, 2, 3)


@dataclass(frozen=True)
class GuessState:
    secrets: tuple[int | None, int | None]
    turn: int  # the first guesser until somebody guesses
    wrong: tuple[tuple[int, ...], tuple[int, ...]]  # wrong guesses made BY each seat
    winner: int | None
    rng: Rng
    forfeited: int | None = None


class Guess(Rules):
    id = "toy_guess"
    hidden_information = True
    simultaneous = True
    title = "Guess"
    min_players = 2
    max_players = 2

    def setup(self, players, options, seed):
        self.normalize_options(players, options)
        first, rng = Rng(seed).below(2)
        return GuessState((None, None), first, ((), ()), None, rng)

    def hiding(self, state) -> bool:
        return None in state.secrets

    def to_act(self, state):
        if self.outcome(state):
            return ()
        if self.hiding(state):
            return tuple(s for s in (0, 1) if state.secrets[s] is None)
        return (state.turn,)

    def legal_moves(self, state, seat):
        if seat not in self.to_act(state):
            return []
        if self.hiding(state):
            return [{"type": "hide", "value": v} for v in VALUES]
        return [{"type": "guess", "value": v} for v in VALUES if v not in state.wrong[seat]]

    def apply(self, state, seat, move):
        move = require_mapping(move)
        if move["type"] not in ("hide", "guess"):
            raise MalformedMove(f"unknown move type {move['type']!r}", "unknown_move_type")
        value = _count(move, "value")
        if seat not in self.to_act(state):
            raise NotYourTurn(f"seat {seat} may not move now")
        if move not in self.legal_moves(state, seat):
            raise IllegalMove(f"{move} is not allowed now", "not_allowed")
        if move["type"] == "hide":
            secrets = list(state.secrets)
            secrets[seat] = value
            return replace(state, secrets=tuple(secrets))
        if state.secrets[1 - seat] == value:
            return replace(state, winner=seat)
        wrong = list(state.wrong)
        wrong[seat] = (*wrong[seat], value)
        return replace(state, wrong=tuple(wrong), turn=1 - seat)

    def view(self, state, seat):
        return {
            "hidden": [s is not None for s in state.secrets],
            "secret": None if seat is None else state.secrets[seat],
            "turn": state.turn,
            "wrong": [list(w) for w in state.wrong],
            "winner": state.winner,
            "forfeited": state.forfeited,
        }

    def outcome(self, state):
        if state.forfeited is not None:
            return _forfeit_outcome(2, state.forfeited)
        if state.winner is None:
            return None
        return Outcome(tuple(float(s == state.winner) for s in (0, 1)), (state.winner,), "guessed")

    def timeout_move(self, state, seat):
        return self.legal_moves(state, seat)[0]

    def forfeit(self, state, seat):
        return replace(state, forfeited=seat)

    def public_move(self, before, seat, move, after):
        if move["type"] == "hide":
            return {"type": "hide", "commitment": commitment(move["value"], "toy")}
        return move

    def render_text(self, state, seat):
        return f"wrong guesses {state.wrong}, seat {state.turn} to guess"

    def dump(self, state):
        return {"secrets": list(state.secrets), "turn": state.turn,
                "wrong": [list(w) for w in state.wrong], "winner": state.winner,
                "rng": state.rng.dump(), "forfeited": state.forfeited}

    def load(self, data):
        return GuessState(tuple(data["secrets"]), data["turn"],
                          tuple(tuple(w) for w in data["wrong"]), data["winner"],
                          Rng.load(data["rng"]), data["forfeited"])

    def sample_state(self, view, seat, rng):
        """The other seat's number, if hidden, is drawn among those not yet guessed wrong."""
        other = 1 - seat
        secrets = [None, None]
        secrets[seat] = view["secret"]
        if view["hidden"][other]:
            secrets[other] = rng.choice([v for v in VALUES if v not in view["wrong"][seat]])
        return GuessState(tuple(secrets), view["turn"], tuple(tuple(w) for w in view["wrong"]),
                          view["winner"], Rng(_fresh_seed(rng)), view["forfeited"])


NIM, RACE, GUESS = Nim(), Race(), Guess()
TOYS = (NIM, RACE, GUESS)
