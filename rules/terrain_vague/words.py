"""The names of Terrain Vague's pieces and gangs in the sentences its refusals write: as words the
reader's language has (`rules.words`), not the ids the moves carry."""

from __future__ import annotations

from typing import Any

from rules.terrain_vague import data
from rules.terrain_vague.state import ACT, BUILD, CLUBHOUSE_PLACEMENT, OVER, PICK, WRESTLE
from rules.words import listed, msg

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

# The text board names a gang as its id reads ("brambles"): the same words in English, its name
# in another language.
GANGS_ON_THE_BOARD = {
    data.RUBBLES: msg("rubbles"),
    data.BRAMBLES: msg("brambles"),
    data.CESSPOOLS: msg("cesspools"),
    data.SCRAPPERS: msg("scrappers"),
}
PHASES = {
    BUILD: msg("build"),
    CLUBHOUSE_PLACEMENT: msg("clubhouse"),
    PICK: msg("pick"),
    WRESTLE: msg("wrestle"),
    ACT: msg("act"),
    OVER: msg("over"),
}


def piece(kind: Any) -> Any:
    """A piece's name; anything else (a move's bad value, named back to its sender) as it is."""
    return PIECES.get(kind, kind) if isinstance(kind, str) else kind


def gang(name: Any) -> Any:
    return GANGS.get(name, name) if isinstance(name, str) else name


def board_gang(name: Any) -> Any:
    """A gang in a text board's line: its id in English ("brambles"), its name in another language."""
    return GANGS_ON_THE_BOARD.get(name, name) if isinstance(name, str) else name


def board_gangs(names: Any) -> Any:
    """Gangs listed in a text board's line ("brambles, scrappers")."""
    return listed([board_gang(name) for name in names])


def phase(name: Any) -> Any:
    return PHASES.get(name, name) if isinstance(name, str) else name


def gang_pair(pair: str) -> Any:
    """Option `gangs`' choice ("rubbles-brambles") in words: the two gangs' names."""
    first, second = pair.split("-")
    return msg("{first} and {second}", first=GANGS[first], second=GANGS[second])
