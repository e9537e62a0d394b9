"""The log: appending events to a game's hash chain, and checking that chain.

Each event's `hash` is SHA-256 over the previous hash and the event's public content
(`Event.content`). The private `payload` enters that content only as `private_digest`:
SHA-256 of a per-event salt and the payload's canonical JSON. The salt is HMAC-SHA256 keyed by
the game's secret seed over "event-salt:<seq>", so while the game runs nobody can search the
digest for a secret choice (the seed is 256 random bits), and once the game ends and the seed is
published, anyone can derive every salt and check every payload against the chain.

An append takes the previous event's hash from the log itself (read with the game,
`games.stores`, or here): a log whose previous event is missing (a truncated or
damaged table) is refused, never continued.
"""

from __future__ import annotations

from django.utils import timezone

from games import errors, stores
from games.models import GENESIS_HASH, Event, Game, IdempotencyKey
from rules import record
from rules.words import msg

# The arithmetic is pure and shared with the record's verifier (`rules.verify`).
event_salt = record.event_salt
private_digest = record.private_digest


def append(
    game: Game, *, kind: str, seat: int | None, payload: dict, public_payload: dict | None,
    unit: stores.UnitOfWork, idempotency: tuple[int, str, str] | None = None,
) -> Event:
    """Append one event after the game's newest, as the first write of `unit`, the change's unit
    of work (`games.writer`, this function's one caller), which gives the event its id when it
    runs. `idempotency` (user id, key, request digest) stores the request's key with it, in the
    same statement on PostgreSQL."""
    seq = game.seq + 1
    store = stores.current()
    event = store.new_instance(
        Event,
        game=game,
        seq=seq,
        kind=kind,
        seat=seat,
        payload=payload,
        public_payload=payload if public_payload is None else public_payload,
        created_at=timezone.now(),
        prev_hash=_previous_hash(game),
        private_digest=private_digest(game.seed, seq, payload),
    )
    event.hash = event.compute_hash()
    unit.insert_event(event, {field.attname: getattr(event, field.attname) for field in Event._meta.concrete_fields
                              if field.attname != "id"})
    if idempotency is not None:
        user_id, key, digest = idempotency
        unit.insert(IdempotencyKey, [{"user_id": user_id, "key": key, "request_digest": digest,
                                      "event_id": stores.FIRST_ID, "created_at": event.created_at}])
    game.seq, game.last_hash = seq, event.hash
    return event


def _previous_hash(game: Game) -> str:
    if game.seq == 0:
        return GENESIS_HASH
    previous = getattr(game, "last_hash", None) if hasattr(game, "last_hash") else (
        Event.objects.filter(game=game, seq=game.seq).values_list("hash", flat=True).first()
    )
    if previous is None:
        raise errors.LogDamaged(
            msg("game {pk} is at seq {seq} but its event {seq} is missing; nothing more is appended until an operator repairs it (manage.py verify_log)", pk=game.pk, seq=game.seq)
        )
    return previous


def chain_problems(game: Game, events: list[Event]) -> list[str]:
    """Every break in the chain of `events` (the whole log, in seq order): gaps, links, hashes,
    and each private payload against its digest. The seed is known here (the server's side of
    the audit); anyone else can run the same checks from the published seed once a game ends."""
    problems: list[str] = []
    previous, expected_seq = GENESIS_HASH, 1
    for event in events:
        if event.seq != expected_seq:
            missing = f"{expected_seq}" if event.seq == expected_seq + 1 else f"{expected_seq}-{event.seq - 1}"
            problems.append(f"seq {missing} is missing (the next event found is {event.seq})")
            previous = event.prev_hash  # report the gap once and go on checking the rest
        expected_seq = event.seq + 1
        if event.prev_hash != previous:
            problems.append(f"event {event.seq} does not point at the hash of event {event.seq - 1}")
        if event.compute_hash() != event.hash:
            problems.append(f"event {event.seq} was changed after it was written")
        if event.private_digest and event.private_digest != private_digest(game.seed, event.seq, event.payload):
            problems.append(f"event {event.seq}'s payload does not match its private digest")
        previous = event.hash
    last = events[-1].seq if events else 0
    if last != game.seq:
        problems.append(f"the game says seq {game.seq} but its log ends at {last}")
    return problems
