"""The rules protocol: the one interface every game implements.

The service (`games/`), the bots (`bots/`) and the tests use only what is defined here, so a new
game is a new package under `rules/` and nothing else. Nothing in `rules/` imports Django.

A game is a `Rules` subclass, instantiated once as `RULES` in its package's `__init__.py`; the
catalogue (`rules.catalog()`) finds it there. Its state is the game's own immutable value
(a frozen dataclass, tuples not lists), so `apply` returns a new state and never changes its input,
and `load(dump(state)) == state`.

The protocol's parts live by job: `rules.errors` (what a game raises), `rules.options` (its
options), `rules.rng` (its only chance), `rules.values` (helpers for immutable states, commitments),
`rules.fields` (reading a move's fields), `rules.codec` (the JSON of frozen dataclasses) and
`rules.notation` (the default human notation of moves).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from rules import notation
from rules import presentation as shown
from rules.errors import InvalidOptions, MalformedMove
from rules.options import Option
from rules.words import msg

Move = dict[str, Any]
State = Any


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
            "conditional_moves": self.conditional_moves,
            "options": [option.describe() for option in self.options],
        }

    def normalize_options(self, players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        """Validate `players` and `options`, fill in defaults; raise InvalidOptions if bad."""
        if isinstance(players, bool) or not isinstance(players, int):
            raise InvalidOptions("players", msg("must be a whole number, not {players!r}", players=players))
        if not self.min_players <= players <= self.max_players:
            raise InvalidOptions(
                "players",
                msg("{title} takes {min_players} to {max_players} players, not {players}", title=self.title, min_players=self.min_players, max_players=self.max_players, players=players),
            )
        options = {} if options is None else options
        if not isinstance(options, dict):
            raise InvalidOptions("options", msg("must be an object of option names and values"))
        known = {option.name: option for option in self.options}
        for name in options:
            if name not in known:
                raise InvalidOptions(name, msg("{title} has no such option", title=self.title), "unknown_option")
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

    def folding(self, version: int) -> "Rules":
        """The rules that fold (and go on playing) a game recorded under `version`, which
        `folds_version` accepts: this object by default. A package that keeps an older behaviour
        returns the object playing it, so the service and the verifier pick the behaviour by the
        version in the game's log, never by the game."""
        return self

    def replay(self, state: State, seat: int, move: Move) -> State:
        """Fold a stored move (the trusting path): the move was checked when it was played, so a
        stricter check added later must not stop an old game from folding. Defaults to `apply`;
        a game whose checks tighten overrides it."""
        return self.apply(state, seat, move)

    @property
    def conditional_moves(self) -> bool:
        """Whether a conditional line ("if they play X, I play Y") can ever be accepted in this
        game: some move is certain (`move_is_certain`). The default reads the descriptor, as
        `move_is_certain` does; a game that allows certain moves among uncertain ones says True."""
        return not (self.chance or self.hidden_information or self.simultaneous)

    def move_is_certain(self, state: State, seat: int, move: Move) -> bool:
        """Whether `move`, made by `seat` from `state`, leads to a position every seat can know
        in advance: no chance decides it and no seat holds a secret in it. Conditional moves
        ("if they play X, I play Y") only run through such moves. The default reads the
        descriptor; a game with chance or secrets in some moves only may say which, move by move."""
        return not (self.chance or self.hidden_information or self.simultaneous)

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

    # --- presentation ----------------------------------------------------------------------

    def presentation(self, state: State, seat: int | None, before: State | None = None) -> dict[str, Any]:
        """What a page shows the seat (None: a spectator): a panel per seat, a one-line prompt
        of what the seat must do now (None if nothing), the cells that changed since `before`
        (the state before the last event; None: nothing marked) and, once the rules have ended
        the game, how they decided it. The form is in `rules.presentation`; a game fills it
        through `panels`, `prompt`, `cells` and `ending`."""
        to_act = self.to_act(state)
        return {
            "panels": self.panels(state, seat),
            "prompt": self.prompt(state, seat) if seat is not None and seat in to_act else None,
            "touched": [] if before is None else self._touched(state, seat, before),
            "ending": None if to_act else self.ending(state),  # a seat still to act: not over, nothing to ask
        }

    def _touched(self, state: State, seat: int | None, before: State) -> list[str]:
        names = shown.touched(self.cells(before, seat), self.cells(state, seat))
        return [shown.named(name, self.cell_words(name, seat)) for name in names]

    def panels(self, state: State, seat: int | None) -> list[dict[str, Any]]:
        """A panel per seat (`rules.presentation.panel`), with what the seat may know of each.
        Every game implements it (the contract test checks one panel per seat); a game in
        development without it shows no panels."""
        return []

    def prompt(self, state: State, seat: int) -> str:
        """One line, to the seat that must act: what to do now."""
        return msg("Your move: choose one of your legal moves.")

    def ending(self, state: State) -> str | None:
        """How the rules decided the game, in a few words a result line ends with ("the last
        glacier melted"), or None while it goes on. The default words the outcome's reason code;
        a game whose code alone would hide what decided it (a tie-break) says more."""
        outcome = self.outcome(state)
        if outcome is None:
            return None
        return ENDINGS.get(outcome.reason) or outcome.reason.replace("_", " ")

    def cells(self, state: State, seat: int | None) -> dict[str, str]:
        """Each board cell the seat sees, by its target name, with a short text of what is on
        it: two positions' cells differ where the board changed."""
        return {}

    def cell_words(self, name: str, seat: int | None) -> str:
        """A cell named in `cells` as the seat's text board names it, for the text surfaces'
        "last move changed" line: a game whose target names are not its board's labels (an
        internal prefix, 0-based where the board counts from 1) words them. The default: the
        name itself, for a game whose text board labels its cells by the same coordinates."""
        return name

    # --- notation ------------------------------------------------------------------------

    def describe_move(self, state: State, seat: int, move: Move) -> str:
        """A short human notation of a legal move, one line ("move to 0,6"); distinct for each
        of the seat's legal moves. The default names the fields (`rules.notation`). A game may
        write it with `msg` (`rules.words`) whose English is the notation: a reader of another
        language then reads the move in their words, and still types the notation."""
        return notation.fields_text(move)

    def parse_move(self, state: State, seat: int, text: str) -> Move:
        """The legal move that `text` names in the notation of `describe_move` (case and
        spacing forgiven). Raises MalformedMove (`unknown_notation`, `ambiguous_notation`)
        listing the legal moves when no single move reads so."""
        if not isinstance(text, str) or not text.strip():
            raise MalformedMove(msg("a move in notation is a non-empty text"), "unknown_notation")
        legal = self.legal_moves(state, seat)
        describe = lambda move: self.describe_move(state, seat, move)  # noqa: E731
        found = notation.matches(text, legal, describe)
        if len(found) == 1:
            return found[0]
        listed = notation.listing(legal, describe)
        if found:
            raise MalformedMove(msg("{text!r} reads as {found_count} moves; legal moves: {listed}", text=text.strip(), found_count=len(found), listed=listed), "ambiguous_notation")
        raise MalformedMove(msg("no legal move reads {text!r}; legal moves: {listed}", text=text.strip(), listed=listed), "unknown_notation")


# The shipped games' reason codes for an end, as `Rules.ending` words them (translatable:
# rules.words); a reason not listed is worded from its code.
ENDINGS = {
    "good_stuff_home": msg("good stuff home"),
    "last_player_standing": msg("last player standing"),
    "stack_empty": msg("stack empty"),
    "last_player_left": msg("last player left"),
    "forfeit": msg("forfeit"),
    "the last glacier melted": msg("the last glacier melted"),
    "the last glacier melted; equal scores, a draw": msg("the last glacier melted; equal scores, a draw"),
    "no glacier met a fire for 40 turns": msg("no glacier met a fire for 40 turns"),
    "no glacier met a fire for 40 turns; equal scores, a draw": msg("no glacier met a fire for 40 turns; equal scores, a draw"),
}
