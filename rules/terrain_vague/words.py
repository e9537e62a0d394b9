"""The names of Terrain Vague's pieces and gangs in the sentences its refusals write: as words the
reader's language has (`rules.words`), not the ids the moves carry."""

from __future__ import annotations

from typing import Any

from rules.terrain_vague import data
from rules.words import msg

PIECES = {
    data.WHEELBARROW: msg("wheelbarrow"),
    data.SLINGSHOT: msg("slingshot"),
    data.LID: msg("lid"),
    data.BIG_BROTHER: msg("big brother"),
    data.CLUBHOUSE: msg("clubhouse"),
}
GANGS = {
    data.RUBBLES: msg("Rubbles"),
    data.BRAMBLES: msg("Brambles"),
    data.CESSPOOLS: msg("Cesspools"),
    data.SCRAPPERS: msg("Scrappers"),
}


def piece(kind: Any) -> Any:
    """A piece's name; anything else (a move's bad value, named back to its sender) as it is."""
    return PIECES.get(kind, kind) if isinstance(kind, str) else kind


def gang(name: Any) -> Any:
    return GANGS.get(name, name) if isinstance(name, str) else name
