"""The rules protocol: the one interface every game implements.

The service (`games/`), the bots (`bots/`) and the tests use only what is defined here, so a new
game is a new package under `rules/` and nothing else. Nothing in `rules/` imports Django.

A game is a `Rules` subclass, instantiated once as `RULES` in its package's `__init__.py`; the
catalogue (`rules.catalog()`) finds it there. Its state is the game's own immutable value
(a frozen dataclass, tuples not lists), so `apply` returns a new state and never changes its input,
and `load(dump(state)) == state`.

Errors carry a stable snake_case `code` and a message that names what was wrong:
- `MalformedMove`: the move is not of a shape the game understands (the API answers 400);
- `IllegalMove`: well formed, but not allowed in this position (422); `NotYourTurn` is one;
- `InvalidOptions`: bad `setup` arguments, naming the option (400);
- `UnknownRules`: no game by that id (404 or 400, by context).
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, fields
from typing import Any, Iterable, Sequence

from rules import notation

Move = dict[str, Any]
State = Any


class RulesError(Exception):
    """Every error the rules raise; `code` is stable, `message` is for people."""

    code = "rules_error"

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "detail": self.message}


class UnknownRules(RulesError):
    code = "unknown_rules"


class InvalidOptions(RulesError):
    code = "invalid_option"

    def __init__(self, option: str, message: str, code: str | None = None):
        super().__init__(f"option {option!r}: {message}", code)
        self.option = option


class MalformedMove(RulesError):
    code = "malformed_move"


class IllegalMove(RulesError):
    code = "illegal_move"


class NotYourTurn(IllegalMove):
    code = "not_your_turn"


# --- options -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """One game option: its type, allowed values and default, described for `GET /api/rules/`.

    `type` is one of "bool", "int", "choice" or "json" (a free structure the game validates in
    `Rules.check_options`). For "int", `choices` may list the allowed values or `minimum` and
    `maximum` bound them; for "choice", `choices` lists them.
    """

    name: str
    type: str
    default: Any
    description: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {
            "name": self.name,
            "type": self.type,
            "default": self.default,
            "description": self.description,
        }
        for key in ("choices", "minimum", "maximum"):
            value = getattr(self, key)
            if value is not None:
                described[key] = list(value) if key == "choices" else value
        return described

    def validate(self, value: Any) -> Any:
        if self.type == "bool":
            if not isinstance(value, bool):
                raise InvalidOptions(self.name, f"must be true or false, not {value!r}")
            return value
        if self.type == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidOptions(self.name, f"must be a whole number, not {value!r}")
            self._check_bounds(value)
            return value
        if self.type == "choice":
            if value not in (self.choices or ()):
                allowed = ", ".join(repr(c) for c in self.choices or ())
                raise InvalidOptions(self.name, f"must be one of {allowed}, not {value!r}")
            return value
        return value  # "json": the game checks it in check_options

    def _check_bounds(self, value: int) -> None:
        if self.choices is not None and value not in self.choices:
            raise InvalidOptions(self.name, f"must be one of {list(self.choices)}, not {value}")
        if self.minimum is not None and value < self.minimum:
            raise InvalidOptions(self.name, f"must be at least {self.minimum}, not {value}")
        if self.maximum is not None and value > self.maximum:
            raise InvalidOptions(self.name, f"must be at most {self.maximum}, not {value}")


# --- chance --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rng:
    """A deterministic, immutable random source carried inside a game state.

    Draw number n is SHA-256 of "seed:n", so the same seed always gives the same draws on any
    machine and Python version, and a state holding an `Rng` can be dumped and loaded exactly.
    Each draw returns the value and the advanced generator: `value, rng = rng.below(6)`.
    """

    seed: str
    drawn: int = 0

    def _bits(self) -> int:
        digest = hashlib.sha256(f"{self.seed}:{self.drawn}".encode()).digest()
        return int.from_bytes(digest, "big")

    def below(self, n: int) -> tuple[int, Rng]:
        """A uniform int in [0, n). The 256-bit draw makes the modulo bias negligible."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        return self._bits() % n, Rng(self.seed, self.drawn + 1)

    def between(self, low: int, high: int) -> tuple[int, Rng]:
        """A uniform int in [low, high], both ends included."""
        value, rng = self.below(high - low + 1)
        return low + value, rng

    def choice(self, items: Sequence[Any]) -> tuple[Any, Rng]:
        index, rng = self.below(len(items))
        return items[index], rng

    def shuffled(self, items: Iterable[Any]) -> tuple[tuple[Any, ...], Rng]:
        """Fisher-Yates over a copy; returns a tuple."""
        pool, rng = list(items), self
        for i in range(len(pool) - 1, 0, -1):
            j, rng = rng.below(i + 1)
            pool[i], pool[j] = pool[j], pool[i]
        return tuple(pool), rng

    def salt(self) -> tuple[str, Rng]:
        """A secret hex salt for a commitment; unguessable while the seed is secret."""
        return f"{self._bits():064x}", Rng(self.seed, self.drawn + 1)

    def dump(self) -> dict[str, Any]:
        return {"seed": self.seed, "drawn": self.drawn}

    @classmethod
    def load(cls, data: dict[str, Any]) -> Rng:
        return cls(seed=data["seed"], drawn=data["drawn"])


def evolve(value: Any, **changes: Any) -> Any:
    """`dataclasses.replace` for the games' frozen state values, several times faster: searches
    (the bots) build millions of states. It copies the fields and sets the changes directly,
    so it suits only dataclasses without `__post_init__` or `init=False` fields, which is all the
    states here; anything else a state keeps in its `__dict__` (a memo) is left behind, as it
    must be, since it belongs to the old value."""
    names = _field_names(type(value))
    if not names.issuperset(changes):
        unknown = sorted(changes.keys() - names)[0]
        raise TypeError(f"{type(value).__name__} has no field {unknown!r}")
    old = value.__dict__
    new = object.__new__(type(value))
    attrs = new.__dict__
    if len(old) == len(names):  # fields only: copy the whole dict at C speed
        attrs.update(old)
    else:
        for name in names:
            attrs[name] = old[name]
    attrs.update(changes)
    return new


@functools.cache
def _field_names(cls: type) -> frozenset[str]:
    declared = fields(cls)
    if hasattr(cls, "__post_init__") or any(not f.init for f in declared):
        raise TypeError(f"evolve() cannot build {cls.__name__}: use dataclasses.replace")
    return frozenset(f.name for f in declared)


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def commitment(choice: Any, salt: str) -> str:
    """The public hash of a secret choice: SHA-256 of its canonical JSON, a colon and the salt.

    Published when the choice is made; the choice and salt are published when it resolves, so
    anyone can check `commitment(choice, salt)` against the hash seen earlier.
    """
    return hashlib.sha256(f"{canonical_json(choice)}:{salt}".encode()).hexdigest()


# --- the protocol --------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """How a game ended: a score per seat, the winning seats (several for a shared win), why."""

    scores: tuple[float, ...]
    winners: tuple[int, ...]
    reason: str
    details: dict[str, Any] = field(default_factory=dict, compare=False)

    def as_dict(self) -> dict[str, Any]:
        return {
            "scores": list(self.scores),
            "winners": list(self.winners),
            "reason": self.reason,
            **({"details": self.details} if self.details else {}),
        }


class Rules(ABC):
    """One game. Subclasses set the descriptor attributes and implement the abstract methods.

    Seats are ints from 0 to players - 1. Moves are JSON-ready dicts, each with a "type" key.
    """

    id: str
    title: str
    min_players: int
    max_players: int
    options: tuple[Option, ...] = ()
    # Bumped when a change could alter how an existing game's log folds. The service records it
    # in each game's created event, so an old game is folded by the behaviour it was played under
    # (or refused with a clear error when that behaviour is gone).
    version: int = 1
    # What kind of game it is, for bots and clients to read rather than guess:
    # `chance`: the seed decides something after setup (dice, draws), so a future is unknown;
    # `hidden_information`: a seat may know what another seat does not (a secret choice);
    # `simultaneous`: several seats may have to act at the same time.
    chance: bool = False
    hidden_information: bool = False
    simultaneous: bool = False

    # --- descriptor ------------------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "version": self.version,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "chance": self.chance,
            "hidden_information": self.hidden_information,
            "simultaneous": self.simultaneous,
            "options": [option.describe() for option in self.options],
        }

    def normalize_options(self, players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        """Validate `players` and `options`, fill in defaults; raise InvalidOptions if bad."""
        if isinstance(players, bool) or not isinstance(players, int):
            raise InvalidOptions("players", f"must be a whole number, not {players!r}")
        if not self.min_players <= players <= self.max_players:
            raise InvalidOptions(
                "players",
                f"{self.title} takes {self.min_players} to {self.max_players} players, not {players}",
            )
        options = {} if options is None else options
        if not isinstance(options, dict):
            raise InvalidOptions("options", "must be an object of option names and values")
        known = {option.name: option for option in self.options}
        for name in options:
            if name not in known:
                raise InvalidOptions(name, f"{self.title} has no such option", "unknown_option")
        chosen = {
            name: option.validate(options[name]) if name in options else option.default
            for name, option in known.items()
        }
        self.check_options(players, chosen)
        return chosen

    def check_options(self, players: int, options: dict[str, Any]) -> None:
        """Cross-checks between options and the player count; raise InvalidOptions if bad."""

    # --- the game --------------------------------------------------------------------------

    @abstractmethod
    def setup(self, players: int, options: dict[str, Any] | None, seed: str) -> State:
        """The starting state. Validates through `normalize_options` first."""

    @abstractmethod
    def to_act(self, state: State) -> tuple[int, ...]:
        """Seats that must act now (several in a simultaneous step); () once the game is over."""

    @abstractmethod
    def legal_moves(self, state: State, seat: int) -> list[Move]:
        """Every move the seat may make now, each accepted by `apply` as it is; [] if none."""

    @abstractmethod
    def apply(self, state: State, seat: int, move: Move) -> State:
        """The state after the move. Raises MalformedMove, NotYourTurn or IllegalMove."""

    def folds_version(self, version: int) -> bool:
        """Whether this code folds a log recorded under `version` exactly as it was played. A
        package that bumps `version` overrides this to keep its older versions reachable."""
        return version == self.version

    def replay(self, state: State, seat: int, move: Move) -> State:
        """Fold a stored move (the trusting path): the move was checked when it was played, so a
        stricter check added later must not stop an old game from folding. Defaults to `apply`;
        a game whose checks tighten overrides it."""
        return self.apply(state, seat, move)

    def normalize_move(self, state: State, seat: int, move: Move) -> Move:
        """The canonical form of a move `apply` accepts: what the log stores. Unknown fields are
        refused with MalformedMove naming the field."""
        return move

    @abstractmethod
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What the seat may know, JSON-ready; `seat=None` is a spectator."""

    @abstractmethod
    def outcome(self, state: State) -> Outcome | None:
        """None while the game runs."""

    @abstractmethod
    def timeout_move(self, state: State, seat: int) -> Move:
        """The legal move made for a seat whose time ran out; chance in it comes from the state."""

    @abstractmethod
    def forfeit(self, state: State, seat: int) -> State:
        """The seat leaves the game and loses; the rules decide what it means for the others."""

    @abstractmethod
    def render_text(self, state: State, seat: int | None) -> str:
        """A plain-text picture of the seat's view, for email and terminals."""

    @abstractmethod
    def dump(self, state: State) -> dict[str, Any]:
        """JSON-ready data with `load(dump(state)) == state`."""

    @abstractmethod
    def load(self, data: dict[str, Any]) -> State:
        """The inverse of `dump`."""

    @abstractmethod
    def sample_state(self, view: dict[str, Any], seat: int, rng: random.Random) -> State:
        """A full state that agrees with what `seat` sees in `view`, with every hidden part
        (stack order, future chance, others' secret choices) drawn from `rng`: the determinization
        a bot searches over. `view(result, seat) == view` must hold."""

    def public_move(self, before: State, seat: int, move: Move, after: State) -> Move:
        """The move as other seats may see it in the log. A secret move (a simultaneous choice)
        becomes its commitment here, and reveals whatever `after` has made public."""
        return move

    # --- notation ------------------------------------------------------------------------

    def describe_move(self, state: State, seat: int, move: Move) -> str:
        """A short human notation of a legal move, one line ("move to 0,6"); distinct for each
        of the seat's legal moves. The default names the fields (`rules.notation`)."""
        return notation.fields_text(move)

    def parse_move(self, state: State, seat: int, text: str) -> Move:
        """The legal move that `text` names in the notation of `describe_move` (case and
        spacing forgiven). Raises MalformedMove (`unknown_notation`, `ambiguous_notation`)
        listing the legal moves when no single move reads so."""
        if not isinstance(text, str) or not text.strip():
            raise MalformedMove("a move in notation is a non-empty text", "unknown_notation")
        legal = self.legal_moves(state, seat)
        describe = lambda move: self.describe_move(state, seat, move)  # noqa: E731
        found = notation.matches(text, legal, describe)
        if len(found) == 1:
            return found[0]
        listed = notation.listing(legal, describe)
        if found:
            raise MalformedMove(f"{text.strip()!r} reads as {len(found)} moves; legal moves: {listed}", "ambiguous_notation")
        raise MalformedMove(f"no legal move reads {text.strip()!r}; legal moves: {listed}", "unknown_notation")


def require_mapping(move: Any) -> Move:
    """The first check of every `apply`: a move is a JSON object with a string "type"."""
    if not isinstance(move, dict):
        raise MalformedMove(f"a move is a JSON object, not {type(move).__name__}")
    if not isinstance(move.get("type"), str):
        raise MalformedMove('a move needs a string "type"', "missing_move_type")
    return move
