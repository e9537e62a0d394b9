"""A game's options, described for clients and validated before `setup`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.errors import InvalidOptions
from rules.words import msg


@dataclass(frozen=True)
class Option:
    """One game option: its type, allowed values and default, described for `GET /api/rules/`.

    `type` is one of "bool", "int", "choice" or "json" (a free structure the game validates in
    `Rules.check_options`). For "int", `choices` may list the allowed values or `minimum` and
    `maximum` bound them; for "choice", `choices` lists them.

    `name` and `choices` are the ids a client sends; `label` (the option's name for people) and
    `choice_labels` (one per choice, in order) are words written with `msg`, which the service
    gives in the reader's language. Without a label the name is shown with spaces for its
    underscores; without choice labels, each choice as it is.
    """

    name: str
    type: str
    default: Any
    description: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None
    label: str | None = None
    choice_labels: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.choice_labels is not None and len(self.choice_labels) != len(self.choices or ()):
            raise ValueError(f"option {self.name}: one label a choice")

    def describe(self) -> dict[str, Any]:
        described: dict[str, Any] = {
            "name": self.name,
            "label": self.label or self.name.replace("_", " "),
            "type": self.type,
            "default": self.default,
            "description": self.description,
        }
        for key in ("choices", "choice_labels", "minimum", "maximum"):
            value = getattr(self, key)
            if value is not None:
                described[key] = list(value) if key in ("choices", "choice_labels") else value
        return described

    def validate(self, value: Any) -> Any:
        if self.type == "bool":
            if not isinstance(value, bool):
                raise InvalidOptions(self.name, msg("must be true or false, not {value!r}", value=value))
            return value
        if self.type == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidOptions(self.name, msg("must be a whole number, not {value!r}", value=value))
            self._check_bounds(value)
            return value
        if self.type == "choice":
            if value not in (self.choices or ()):
                allowed = ", ".join(repr(c) for c in self.choices or ())
                raise InvalidOptions(
                    self.name, msg("must be one of {allowed}, not {value!r}", allowed=allowed, value=value)
                )
            return value
        return value  # "json": the game checks it in check_options

    def _check_bounds(self, value: int) -> None:
        if self.choices is not None and value not in self.choices:
            raise InvalidOptions(
                self.name, msg("must be one of {choices}, not {value}", choices=list(self.choices), value=value)
            )
        if self.minimum is not None and value < self.minimum:
            raise InvalidOptions(
                self.name, msg("must be at least {minimum}, not {value}", minimum=self.minimum, value=value)
            )
        if self.maximum is not None and value > self.maximum:
            raise InvalidOptions(
                self.name, msg("must be at most {maximum}, not {value}", maximum=self.maximum, value=value)
            )


FIRST_PLAYER = "first_player"
DRAWN, SEAT_0 = "drawn", "seat_0"


def first_player_option() -> Option:
    """Who takes the first turn, for a game whose book draws the first player: `seat_0` gives it
    to seat 0. The draw is made either way, so the rest of the game's chance is the same.

    The service knows this option by its name, never by the game: a two-player tournament sets it
    to `seat_0`, so that the pairing's seats decide who starts, as colours do in chess.
    """
    return Option(FIRST_PLAYER, "choice", DRAWN,
                  msg("Who takes the first turn: drawn at random (the book's way), or seat 0 (as a "
                      "tournament of two plays it)."),
                  choices=(DRAWN, SEAT_0), label=msg("First player"),
                  choice_labels=(msg("drawn at random"), msg("seat 0")))


def first_player(chosen: dict[str, Any], drawn: int) -> int:
    """The seat that starts, given the normalized options and the seat the seed drew."""
    return 0 if chosen.get(FIRST_PLAYER) == SEAT_0 else drawn
