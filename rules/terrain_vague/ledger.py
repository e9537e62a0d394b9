"""Per-turn and per-step bookkeeping of the pawn actions (steps 2-5), kept by the action modules.

A `Ledger` is an immutable value kept in `State.ledger`. Hexes are stored as given by the
frame (axial `(q, r)` tuples); gangs and pawn kinds as their string names. Every field is a
sorted tuple so that two ledgers with the same content compare equal and dump identically.

Fields:
- `moved`: hexes of pawns that moved (or arrived) this step; cleared at every step change.
- `fired`: hexes of slingshots that fired this turn.
- `rips`: `(hex, count)` of wheelbarrows that ripped this turn (at most 2 each).
- `changed`: hexes that changed owner or strength this turn (none may change twice).
- `beaned`: `(gang, kind)` pawns beaned this turn (kind may repeat); back to reserve next turn.
- `big_brother_out`: gangs whose big brother cleaned house this turn; back next turn.
- `destroyed`: gangs whose clubhouse was beaned this turn (they do nothing more this turn and
  rebuild it in step 2 of a later turn: a destroyed clubhouse is `None` in `State.clubhouses`).
- `rebuilt`: gangs that rebuilt their clubhouse this turn (they call out nothing else this step).
- `step`: the step `moved` belongs to: a ledger written in an earlier step has `moved` ignored
  (`position.current_ledger`), so the turn flow never has to clear it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from rules.values import evolve


def _freeze(value: Any) -> Any:
    """JSON lists back to tuples, recursively (hexes are tuples)."""
    if isinstance(value, list):
        return tuple(_freeze(item) for item in value)
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_thaw(item) for item in value]
    return value


@dataclass(frozen=True)
class Ledger:
    moved: tuple = ()
    fired: tuple = ()
    rips: tuple = ()
    changed: tuple = ()
    beaned: tuple = ()
    big_brother_out: tuple = ()
    destroyed: tuple = ()
    rebuilt: tuple = ()
    step: int = 0

    @classmethod
    def empty(cls) -> "Ledger":
        return cls()

    def dump(self) -> dict[str, Any]:
        return {name: _thaw(getattr(self, name)) for name in _FIELD_NAMES}

    @classmethod
    def load(cls, data: dict[str, Any]) -> "Ledger":
        return cls(**{k: _freeze(v) for k, v in data.items() if k in _FIELD_NAMES})

    def with_(self, **changes: Any) -> "Ledger":
        return evolve(self, **changes)


# In field order; worked out once, as every view and every load of a state asks.
_FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Ledger))
