"""Each game's page for players and client authors, and its move schema, made from the game
itself so they never drift from the engine: the rules summary and rulings (the game module's
docstring, in our words), every option (`describe`), an example of every kind of move as JSON and
in the human notation, the JSON Schema of the moves, and the view's fields.

Examples come from seeded random games, so the page is the same every time it is made:
`python -m rules.docs` writes `docs/games/<id>.md` and `<id>.moves.json` for every game.
"""

from __future__ import annotations

import importlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import rules
from rules.base import Rules

SAMPLE_SEEDS = range(2)
SAMPLE_MOVES = 1500  # per sampled game: enough to reach every phase


def sample(game: Rules) -> tuple[dict[str, list[dict]], dict[str, tuple[dict, str]], dict[str, Any]]:
    """Random games at every player count: every legal move seen by type, the first example of
    each type with its notation, and a view in mid-game."""
    seen: dict[str, list[dict]] = {}
    examples: dict[str, tuple[dict, str]] = {}
    view: dict[str, Any] = {}
    for players in range(game.min_players, game.max_players + 1):
        for seed in SAMPLE_SEEDS:
            rnd = random.Random(seed)
            state = game.setup(players, {}, f"docs-{players}-{seed}")
            for step in range(SAMPLE_MOVES):
                if game.outcome(state) is not None:
                    break
                for seat in game.to_act(state):
                    for move in game.legal_moves(state, seat):
                        seen.setdefault(move["type"], []).append(move)
                        examples.setdefault(move["type"], (move, game.describe_move(state, seat, move)))
                if step == 30 and not view:
                    view = game.view(state, game.to_act(state)[0])
                seat = game.to_act(state)[0]
                state = game.apply(state, seat, rnd.choice(game.legal_moves(state, seat)))
    return seen, examples, view


def _value_schema(values: list[Any]) -> dict[str, Any]:
    """A field's JSON type, as the sampled moves show it (types only: a sample may not meet every
    value a field can take)."""
    kinds = []
    lists = [v for v in values if isinstance(v, list)]
    if lists:
        pairs = all(len(v) == 2 and all(isinstance(i, int) for i in v) for v in lists)
        item = "integer" if all(isinstance(i, int) for v in lists for i in v) else "string"
        kinds.append({"type": "array", "items": {"type": item}, **({"minItems": 2, "maxItems": 2} if pairs else {})})
    scalars = [v for v in values if not isinstance(v, list)]
    if any(isinstance(v, bool) for v in scalars):
        kinds.append({"type": "boolean"})
    if any(isinstance(v, int) and not isinstance(v, bool) for v in scalars):
        kinds.append({"type": "integer"})
    if any(isinstance(v, str) for v in scalars):
        kinds.append({"type": "string"})
    return kinds[0] if len(kinds) == 1 else {"anyOf": kinds}


def move_schema(game: Rules, seen: dict[str, list[dict]] | None = None) -> dict[str, Any]:
    """The JSON Schema of the game's moves: one object shape per move type, with no other fields
    (the server refuses a field no listed move of that type has)."""
    if seen is None:
        seen = sample(game)[0]
    shapes = []
    for kind in sorted(seen):
        moves = seen[kind]
        fields = sorted({key for move in moves for key in move if key != "type"})
        properties = {"type": {"const": kind}}
        for field in fields:
            properties[field] = _value_schema([move[field] for move in moves if field in move])
        required = ["type", *[field for field in fields if all(field in move for move in moves)]]
        shapes.append({"title": kind, "type": "object", "properties": properties, "required": required,
                       "additionalProperties": False})
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": f"a {game.id} move", "oneOf": shapes}


def _players(info: dict[str, Any]) -> str:
    low, high = info["min_players"], info["max_players"]
    return str(low) if low == high else f"{low} to {high}"


def _options_section(game: Rules) -> list[str]:
    options = game.describe()["options"]
    if not options:
        return ["This game has no options."]
    lines = []
    for option in options:
        lines.append(f"- `{option['name']}` ({option['type']}, default `{json.dumps(option['default'])}`): "
                     f"{option.get('description', '')}")
    return lines


def _view_section(view: dict[str, Any]) -> list[str]:
    lines = ["The view is a JSON object; its top-level fields, with their values in one sampled position:", ""]
    for key, value in view.items():
        shown = json.dumps(value)
        if len(shown) > 70:
            shown = shown[:67] + "..."
        lines.append(f"- `{key}`: `{shown}`")
    return lines


def page(game: Rules, module_doc: str) -> tuple[str, dict[str, Any]]:
    """The game's page (Markdown) and its move schema."""
    seen, examples, view = sample(game)
    info = game.describe()
    lines = [
        f"# {info['title']}",
        "",
        f"`{game.id}`, rules version {info['version']}: {_players(info)} players; "
        f"chance: {'yes' if info['chance'] else 'no'}; hidden information: {'yes' if info['hidden_information'] else 'no'}; "
        f"simultaneous choices: {'yes' if info['simultaneous'] else 'no'}.",
        "",
        "This page is made from the game's own code (`python -m rules.docs`), so it always says what the",
        "server does. `GET /api/rules/" + game.id + "/` serves it with the move schema.",
        "",
        "## Rules, moves and rulings",
        "",
        module_doc.strip(),
        "",
        "## Options",
        "",
        *_options_section(game),
        "",
        "## Every kind of move",
        "",
        "Each example is a legal move from a sampled game, as JSON (what `POST /api/games/{id}/moves/`",
        "takes) and in the human notation (what the log, the web client and the mails show, and what a",
        "mail reply may say):",
        "",
    ]
    for kind in sorted(examples):
        move, notation = examples[kind]
        lines += [f"- `{kind}`: `{json.dumps(move)}` — `{notation}`"]
    lines += [
        "",
        "The JSON Schema of the moves is in `" + game.id + ".moves.json` beside this page. Beyond moves, every",
        "game has the same calls on its life (resign, abort, draw offers: see docs/api.md).",
        "",
        "## The view",
        "",
    ]
    lines += _view_section(view)
    return "\n".join(lines) + "\n", move_schema(game, seen)


def _rulings_of(game: Rules) -> str:
    """The game's docstring: its package's, where the rules summary and rulings are kept."""
    module = sys.modules[type(game).__module__]
    package = module.__package__
    if package and package not in ("rules", "") and not hasattr(module, "__path__"):
        module = importlib.import_module(package)
    return module.__doc__ or ""


def write_all(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for game_id, game in rules.catalog().items():
        text, schema = page(game, _rulings_of(game))
        (folder / f"{game_id}.md").write_text(text)
        (folder / f"{game_id}.moves.json").write_text(json.dumps(schema, indent=1, sort_keys=True) + "\n")
        written += [folder / f"{game_id}.md", folder / f"{game_id}.moves.json"]
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "docs" / "games"
    for path in write_all(target):
        print(path)
