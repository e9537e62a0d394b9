"""The log's hash chain and its secrets, as pure functions: the server writes with them
(`games.models.Event`, `games.log`) and the verifier (`rules.verify`) checks with them, so a game
record is checked with exactly the arithmetic that made it.

- An event's hash is SHA-256 of "<previous hash>:<canonical JSON of its content>"; the first
  event points at GENESIS_HASH.
- Its content holds only public fields; the private payload enters as `private_digest`,
  SHA-256 of "<salt>:<canonical JSON of the payload>", the salt being HMAC-SHA256 keyed by the
  game's seed over "event-salt:<seq>". Events written before salted digests carry an empty
  digest and hash the payload itself (the legacy content).
- The seed is published as its commitment, SHA-256 of the seed, when the game is created, and
  itself when the game ends.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from rules.values import canonical_json

GENESIS_HASH = "0" * 64


def seed_commitment(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def event_salt(seed: str, seq: int) -> str:
    return hmac.new(seed.encode(), f"event-salt:{seq}".encode(), hashlib.sha256).hexdigest()


def private_digest(seed: str, seq: int, payload: Any) -> str:
    body = f"{event_salt(seed, seq)}:{canonical_json(payload)}"
    return hashlib.sha256(body.encode()).hexdigest()


def event_content(
    *, game: int, seq: int, kind: str, seat: int | None, payload: Any, public_payload: Any,
    private_digest: str, created_at: str,
) -> dict[str, Any]:
    """What an event's hash covers (`created_at` as ISO 8601 text, as the server writes it)."""
    if not private_digest:
        return {"game": game, "seq": seq, "kind": kind, "seat": seat, "payload": payload,
                "public_payload": public_payload, "created_at": created_at}
    return {"game": game, "seq": seq, "kind": kind, "seat": seat, "public_payload": public_payload,
            "private_digest": private_digest, "created_at": created_at}


def event_hash(prev_hash: str, content: dict[str, Any]) -> str:
    return hashlib.sha256(f"{prev_hash}:{canonical_json(content)}".encode()).hexdigest()
