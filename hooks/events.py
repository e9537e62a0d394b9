"""What an endpoint can be told, and the body of each message.

The types are the account feed's (`GET /api/stream/`) plus `event`, each log event as `/events/`
gives it to the endpoint's owner: `game_started`, `your_turn` (when the newest event leaves the
owner to act), `deadline_warning` (80% of the move's time used), `game_over` (with the result),
the invitations to a private game to or from the owner (`invitation_created`,
`invitation_declined`, `invitation_cancelled`, `invitation_accepted`: each with the body the
account feed gives, `{"invitation", "game", "rules", "invitee", "inviter", "status"}`), and `ping`
(`POST /api/webhooks/{id}/ping/`). Every body is JSON in the Standard Webhooks shape,
`{"type", "timestamp", "data"}`; `data` holds only what the owner may see: its own seat's view, or
a spectator's for a game it follows without a seat.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from rest_framework.utils.encoders import JSONEncoder

from games import selectors

EVENT, GAME_STARTED, YOUR_TURN, DEADLINE_WARNING, GAME_OVER, PING = (
    "event", "game_started", "your_turn", "deadline_warning", "game_over", "ping",
)
INVITATION_CREATED, INVITATION_DECLINED, INVITATION_CANCELLED, INVITATION_ACCEPTED = (
    "invitation_created", "invitation_declined", "invitation_cancelled", "invitation_accepted",
)
INVITATIONS = {"created": INVITATION_CREATED, "declined": INVITATION_DECLINED, "cancelled": INVITATION_CANCELLED,
               "accepted": INVITATION_ACCEPTED}  # what `games.signals.invitation_changed` says -> the type
TYPES = (EVENT, GAME_STARTED, YOUR_TURN, DEADLINE_WARNING, GAME_OVER,
         *INVITATIONS.values())  # what an endpoint subscribes to
ACTIVE, FINISHED = "active", "finished"  # a game's `status` as the API gives it


def webhook_id(endpoint_id: int, type_: str, game_id: int | None = None, seq: int | None = None) -> str:
    """The message's id: the same for every attempt and for a repeated fan-out, so receivers
    (and our unique index) drop duplicates by it."""
    return f"msg_{endpoint_id}_{type_}" + (f"_{game_id}_{seq}" if game_id is not None else "")


def body(type_: str, data: dict[str, Any], at: dt.datetime) -> dict[str, Any]:
    """A message body, JSON-safe (datetimes as the API writes them) so it is stored as sent."""
    message = {"type": type_, "timestamp": at, "data": data}
    return json.loads(json.dumps(message, cls=JSONEncoder))


def encoded(payload: dict[str, Any]) -> bytes:
    """The bytes POSTed and signed; sorted keys, so every attempt sends the same bytes."""
    return json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def notices(game: dict[str, Any], seen: list[dict[str, Any]]) -> list[tuple[str, int, dict[str, Any]]]:
    """(type, seq, data) of every notice owed for news of a game: `game` is the game now
    (`selectors.account_game`), `seen` the new events as the owner sees them (those recorded
    after the endpoint was made). The turn is told whenever there is news and it is the owner's
    (even if the move that made it came before the endpoint); the end only as it happens."""
    about = {key: game[key] for key in ("game", "rules", "seat")}
    found = []
    for event in seen:
        found.append((EVENT, event["seq"], {**about, "seq": event["seq"], "event": event}))
        if selectors.starts_game(event):
            found.append((GAME_STARTED, event["seq"], {**about, "seq": event["seq"]}))
    now = {**about, "seq": game["seq"]}
    if game["status"] == ACTIVE and game["seat"] in game["to_act"]:
        found.append((YOUR_TURN, game["seq"], {**now, "deadline": game["deadline"]}))
    if game["status"] == FINISHED and seen and seen[-1]["seq"] == game["seq"]:
        found.append((GAME_OVER, game["seq"], {**now, "result": game["result"]}))
    return found
