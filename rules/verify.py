"""Check a finished game's record without the server: `python -m rules.verify record.json`.

The record (`GET /api/games/{id}/record`) holds the rules id and version, the options, the seats,
every event with its hash-chain fields, the seed's commitment, the seed and the result. This
checks, with nothing but this package (pure Python, no Django, no database):

1. the seed against its commitment (published when the game was created);
2. the chain, link by link: each event's seq follows the last, it points at the previous hash,
   its hash is that of its content (`rules.record`, the server's own arithmetic), and its private
   payload matches its salted digest (derivable only from the seed);
3. every commitment-reveal pair: each revealed secret (a choice with its salt) hashes to its
   commitment, and that commitment was published no later than the event revealing it (in an
   event's public form, or in the spectators' view the replay shows after an earlier event);
4. the play: every move is replayed under the recorded rules version and must be legal, and what
   everyone saw of it (its public form) must be what the rules show of that move; forfeits and
   takebacks fold as the server folds them; the end must be the recorded result.

It prints what it checked and exits 0, or prints the first failure, naming its event, and exits 1.
A chain alone can be recomputed by whoever edits a record, so the replay is what binds the moves,
the seed and the result together; the chain binds the record to the hashes players saw in play.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any

import rules
from rules.errors import RulesError
from rules.record import GENESIS_HASH, event_content, event_hash, private_digest, seed_commitment
from rules.values import canonical_json, commitment

FORMAT = "scrapyard-game-record"
CREATED, SYSTEM = "created", "system"
TAKEBACK = "takeback"  # a system event folding to the state after event `to` (games.store)


class Failure(Exception):
    """The first thing that does not check out; `where` names the event (or the part)."""

    def __init__(self, where: str, problem: str):
        super().__init__(f"{where}: {problem}")
        self.where, self.problem = where, problem


@dataclass
class Report:
    checked: list[str] = field(default_factory=list)
    failure: Failure | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None


def verify(record: dict[str, Any]) -> Report:
    report = Report()
    try:
        _verify(record, report)
    except Failure as failure:
        report.failure = failure
    return report


def _verify(record: dict[str, Any], report: Report) -> None:
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise Failure("the record", f"not a game record (format {FORMAT!r} expected)")
    seed = _field(record, "seed", str)
    if seed_commitment(seed) != _field(record, "seed_sha256", str):
        raise Failure("the seed", "does not match its commitment (seed_sha256)")
    report.checked.append("the seed matches its commitment")
    game_rules, version = _rules_of(record)
    events = _field(record, "events", list)
    if not events:
        raise Failure("the record", "has no events")
    play = _Replay(record, game_rules, seed)
    previous, commitments, revealed = GENESIS_HASH, {}, 0
    for position, event in enumerate(events, start=1):
        where = f"event {event.get('seq', f'#{position}') if isinstance(event, dict) else f'#{position}'}"
        _check_link(record, event, position, previous, seed, where)
        revealed += _check_secrets(event, commitments, where)
        play.fold(event, where)
        _publish(_objects(play.public_view()), commitments, where)
        previous = event["hash"]
    report.checked.append(f"the hash chain of {len(events)} events, link by link, and every private payload")
    report.checked.append(f"{revealed} revealed secrets against {len(commitments)} commitments published before")
    result = play.result(f"event {events[-1]['seq']}")
    report.checked.append(
        f"{play.moves} moves replayed under {game_rules.id} version {version} to the recorded result "
        f"({result.get('reason')}, winners {result.get('winners')})"
    )


def _field(record: dict[str, Any], name: str, kind: type) -> Any:
    value = record.get(name)
    if not isinstance(value, kind):
        raise Failure("the record", f"has no {name} ({kind.__name__})")
    return value


def _rules_of(record: dict[str, Any]) -> tuple[Any, int]:
    described = _field(record, "rules", dict)
    try:
        game_rules = rules.get(described.get("id"))
    except rules.UnknownRules as error:
        raise Failure("the rules", str(error)) from None
    version = described.get("version")
    if not isinstance(version, int) or not game_rules.folds_version(version):
        raise Failure("the rules", f"{game_rules.id} version {game_rules.version} here does not fold version {version}")
    return game_rules.folding(version), version


def _check_link(record: dict, event: Any, position: int, previous: str, seed: str, where: str) -> None:
    if not isinstance(event, dict):
        raise Failure(where, "is not an event")
    if event.get("seq") != position:
        raise Failure(where, f"is out of place: event {position} was expected here (an event removed or moved)")
    if event.get("prev_hash") != previous:
        raise Failure(where, f"does not point at the hash of event {position - 1}")
    try:
        content = event_content(
            game=record.get("game"), seq=event["seq"], kind=event["kind"], seat=event["seat"],
            payload=event["payload"], public_payload=event["public_payload"],
            private_digest=event["private_digest"], created_at=event["created_at"],
        )
    except KeyError as missing:
        raise Failure(where, f"has no {missing.args[0]}") from None
    if event_hash(previous, content) != event.get("hash"):
        raise Failure(where, "does not hash to its recorded hash (changed after it was written)")
    if event["private_digest"] and private_digest(seed, event["seq"], event["payload"]) != event["private_digest"]:
        raise Failure(where, "its private payload does not match its salted digest")


def _check_secrets(event: dict, published: dict[str, str], where: str) -> int:
    """Record the commitments this event publishes, then check the secrets it reveals: a
    revealed secret is an object with a `salt`, a `commitment` and the secret beside them."""
    reveals = [found for found in _objects(event["public_payload"]) if "commitment" in found and "salt" in found]
    _publish(_objects(event["public_payload"]), published, where)
    for found in reveals:
        secret = {k: v for k, v in found.items() if k not in ("salt", "commitment")}
        if len(secret) != 1:
            raise Failure(where, "reveals a secret of unknown shape")
        (value,) = secret.values()
        if commitment(value, found["salt"]) != found["commitment"]:
            raise Failure(where, f"reveals {canonical_json(value)}, which does not match its commitment")
        if found["commitment"] not in published:
            raise Failure(where, "reveals a secret before its commitment was published")
    return len(reveals)


def _publish(objects: Any, published: dict[str, str], where: str) -> None:
    for found in objects:
        if "commitment" in found and "salt" not in found:
            published.setdefault(found["commitment"], where)


def _objects(value: Any):
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from _objects(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _objects(inner)


class _Replay:
    """The fold, as the server's `games.store.fold_event` does it, but checking every move."""

    def __init__(self, record: dict, game_rules: Any, seed: str):
        self.record, self.rules, self.seed = record, game_rules, seed
        self.states: dict[int, Any] = {}
        self.state: Any = None
        self.ended_by: dict[str, Any] | None = None
        self.moves = 0

    def fold(self, event: dict, where: str) -> None:
        kind, seat, payload = event["kind"], event["seat"], event["payload"]
        if not isinstance(payload, dict):
            raise Failure(where, "has no payload object")
        try:
            if kind == CREATED:
                self._setup(payload, where)
            elif self.state is None:
                raise Failure(where, "comes before the game was created")
            elif "move" in payload:
                self._move(seat, payload["move"], event["public_payload"], where)
            elif payload.get("forfeit"):
                self.state = self.rules.forfeit(self.state, seat)
            elif kind == SYSTEM and payload.get("type") == TAKEBACK:
                if payload.get("to") not in self.states:
                    raise Failure(where, f"takes back to an unknown event {payload.get('to')!r}")
                self.state = self.states[payload["to"]]
            if kind == SYSTEM and isinstance(payload.get("result"), dict):
                self.ended_by = payload["result"]
        except RulesError as error:
            raise Failure(where, f"the rules refuse it: {error}") from None
        except Failure:
            raise
        except Exception as error:  # a damaged record must be reported, never crash the check
            raise Failure(where, f"does not fold: {type(error).__name__}: {error}") from None
        self.states[event["seq"]] = self.state

    def public_view(self) -> Any:
        """What a spectator was shown after the event: a choice the rules made for a seat (one
        drawn for a gang that left) is committed to there, not in a move's public form."""
        return None if self.state is None else self.rules.view(self.state, None)

    def _setup(self, payload: dict, where: str) -> None:
        header = self.record
        if payload.get("rules_version", 1) != header["rules"]["version"]:
            raise Failure(where, "records another rules version than the record's")
        if payload.get("rules", header["rules"]["id"]) != header["rules"]["id"]:
            raise Failure(where, "records other rules than the record's")
        if payload.get("seed_sha256", header["seed_sha256"]) != header["seed_sha256"]:
            raise Failure(where, "published another seed commitment than the record's")
        if payload.get("players") != header.get("players") or payload.get("options") != header.get("options"):
            raise Failure(where, "records other players or options than the record's")
        self.state = self.rules.setup(payload["players"], payload["options"], self.seed)

    def _move(self, seat: Any, move: Any, public: Any, where: str) -> None:
        if self.rules.outcome(self.state) is not None:
            raise Failure(where, "is a move after the game was over")
        before = self.state
        self.state = self.rules.apply(before, seat, move)
        self.moves += 1
        shown = self.rules.public_move(before, seat, move, self.state)
        if not isinstance(public, dict) or _json(shown) != _json(public.get("move")):
            raise Failure(where, "what everyone saw of the move is not what the rules show of it")

    def result(self, where: str) -> dict[str, Any]:
        if self.ended_by is not None:
            expected = self.ended_by
        else:
            outcome = self.rules.outcome(self.state)
            if outcome is None:
                raise Failure(where, "the log ends before the game is over")
            expected = outcome.as_dict()
        recorded = self.record.get("result")
        if _json(expected) != _json(recorded):
            raise Failure(where, f"the replay ends in {canonical_json(expected)}, not the recorded result")
        return expected


def _json(value: Any) -> Any:
    """Compare as JSON does: tuples as lists, 1 as 1.0."""
    return json.loads(json.dumps(value))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m rules.verify record.json", file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8") as file:
            record = json.load(file)
    except (OSError, ValueError) as error:
        print(f"cannot read {args[0]}: {error}", file=sys.stderr)
        return 2
    report = verify(record)
    for line in report.checked:
        print(f"ok   {line}")
    if report.failure is not None:
        print(f"FAIL {report.failure}")
        return 1
    print(f"game {record.get('game')} verifies")
    return 0


if __name__ == "__main__":
    sys.exit(main())
