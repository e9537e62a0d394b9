"""A finished game's record, a self-contained file anyone can check without us
(`python -m rules.verify record.json`): the rules id and version, the options, the seats, every
event with its hash-chain fields, the seed's commitment, the seed, and the result.

Only a finished game has one (its seed, and with it every event's private payload, is public
only then), and a private game's record only for its players: anyone else is told there is no
such game, exactly as for an id that does not exist.
"""

from __future__ import annotations

from typing import Any

from games import errors, selectors, store
from games.models import Event, Game, GameStatus
from rules.verify import FORMAT

FORMAT_VERSION = 1


def game_record(*, game_id: int, user: Any) -> dict[str, Any]:
    game = selectors.game_get(game_id=game_id)
    if game.private and selectors.seat_of(game=game, user=user) is None:
        raise errors.GameNotFound(f"there is no game {game_id}")
    if game.status != GameStatus.FINISHED:
        raise errors.GameNotFinished(f"game {game_id} is {game.status}: its record, and its seed, come when it ends")
    return record_of(game)


def record_of(game: Game) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": game.pk,
        "rules": {"id": game.rules, "version": store.recorded_version(game)},
        "players": game.players,
        "options": game.options,
        "seats": selectors.seats_of(game=game),
        "seed_sha256": game.seed_sha256,
        "seed": game.seed,
        "result": game.result,
        "events": [_event(e) for e in Event.objects.filter(game=game).order_by("seq")],
    }


def _event(event: Event) -> dict[str, Any]:
    return {
        "seq": event.seq,
        "kind": event.kind,
        "seat": event.seat,
        "payload": event.payload,
        "public_payload": event.public_payload,
        "created_at": event.created_at.isoformat(),
        "prev_hash": event.prev_hash,
        "private_digest": event.private_digest,
        "hash": event.hash,
    }
