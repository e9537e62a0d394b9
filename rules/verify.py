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
   takebacks fold as the server folds them; the end must be the recorded result;
5. who sat where: the record's `seats` must be what the log's `seat_taken` and `seat_left` events
   (inside the chain) make of them;
6. the end: a result comes from the rules, or from an ending the players made (an abort, a
   cancel, an agreed draw, an abandoned game) whose conditions the log shows and whose result is
   the one that ending gives; any other event carrying a result, and any event after the end,
   fails, named.

It prints what it checked and the last event's hash, and exits 0; or prints the first failure
(`FAIL ...`), naming its event, and exits 1. A malformed, too deeply nested or too large record
is a failure like any other, found in bounded time and memory. A chain alone can be recomputed
by whoever edits a record, so the replay is what binds the moves, the seed and the result
together; the chain binds the record to the hashes players saw in play: compare the last hash
printed with the one your client showed (or pass it: `--hash HEX` fails on any other).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from typing import Any

import rules
from rules.errors import RulesError
from rules.record import GENESIS_HASH, event_content, event_hash, private_digest, seed_commitment
from rules.record_file import MAX_BYTES, MAX_DEPTH, ShapeError, check_shape
from rules.values import canonical_json, commitment

FORMAT = "scrapyard-game-record"
CREATED, MOVE, SYSTEM = "created", "move", "system"
TAKEBACK = "takeback"  # a system event folding to the state after event `to` (games.store)
SEAT_TAKEN, SEAT_LEFT, GAME_STARTED = "seat_taken", "seat_left", "game_started"
DRAW_OFFERED, DRAW_ACCEPTED, DRAW_DECLINED = "draw_offered", "draw_accepted", "draw_declined"
ADJOURNED, ABORT, CANCEL, DRAW_AGREED = "adjourned", "abort", "cancel", "draw_agreed"



class Failure(Exception):
    """The first thing that does not check out; `where` names the event (or the part)."""

    def __init__(self, where: str, problem: str):
        super().__init__(f"{where}: {problem}")
        self.where, self.problem = where, problem


@dataclass
class Report:
    checked: list[str] = field(default_factory=list)
    failure: Failure | None = None
    last_hash: str | None = None  # the newest event's hash, as a player's client showed it

    @property
    def ok(self) -> bool:
        return self.failure is None


def verify(record: Any) -> Report:
    """Never raises: whatever the record holds, the report says what checked out and what not."""
    report = Report()
    where = _Where()
    try:
        _check_depth(record)
        _verify(record, report, where)
    except Failure as failure:
        report.failure = failure
    except (RecursionError, MemoryError) as error:
        report.failure = Failure(where.now, f"is too large or too deeply nested to check ({type(error).__name__})")
    except Exception as error:  # a damaged record must be reported, never crash the check
        report.failure = Failure(where.now, f"is malformed: {type(error).__name__}: {error}")
    return report


class _Where:
    """What is being checked now, for a failure nobody foresaw."""

    now = "the record"


def _check_depth(value: Any) -> None:
    """Refuse JSON nested deeper than MAX_DEPTH, without recursion (a deep value would overflow
    the stack of everything recursive that reads it: canonical JSON, the secrets' search)."""
    pending = [(value, 1)]
    while pending:
        current, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise Failure("the record", f"is nested more than {MAX_DEPTH} levels deep")
        if isinstance(current, dict):
            pending.extend((inner, depth + 1) for inner in current.values())
        elif isinstance(current, list):
            pending.extend((inner, depth + 1) for inner in current)


def _verify(record: Any, report: Report, where: _Where) -> None:
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
        where.now = f"event {event.get('seq', f'#{position}') if isinstance(event, dict) else f'#{position}'}"
        _check_link(record, event, position, previous, seed, where.now)
        revealed += _check_secrets(event, commitments, where.now)
        play.fold(event, where.now)
        _publish(_objects(play.public_view()), commitments, where.now)
        previous = event["hash"]
    report.last_hash = previous
    report.checked.append(f"the hash chain of {len(events)} events, link by link, and every private payload")
    report.checked.append(f"{revealed} revealed secrets against {len(commitments)} commitments published before")
    where.now = "the record's seats"
    play.check_seats()
    report.checked.append(f"the seats ({_seats_text(play.seats)}) are the ones the log seated")
    where.now = f"event {events[-1]['seq']}"
    result = play.result(where.now)
    report.checked.append(
        f"{play.moves} moves replayed under {game_rules.id} version {version} to the recorded result "
        f"({result.get('reason')}, winners {result.get('winners')}{play.ended_how()})"
    )


def _seats_text(seats: dict[int, dict]) -> str:
    return ", ".join(f"{index}: {_who_text(who)}" for index, who in sorted(seats.items())) or "none"


def _who_text(who: dict) -> str:
    if who.get("bot") is not None:
        return f"bot {who['bot'].get('name')} level {who['bot'].get('level')}"
    return str(who.get("username"))


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
        if len(secret) != 1 or not isinstance(found["salt"], str):
            raise Failure(where, "reveals a secret of unknown shape")
        (value,) = secret.values()
        if commitment(value, found["salt"]) != found["commitment"]:
            raise Failure(where, f"reveals {canonical_json(value)}, which does not match its commitment")
        if found["commitment"] not in published:
            raise Failure(where, "reveals a secret before its commitment was published")
    return len(reveals)


def _publish(objects: Any, published: dict[str, str], where: str) -> None:
    for found in objects:
        if "commitment" in found and "salt" not in found and isinstance(found["commitment"], str):
            published.setdefault(found["commitment"], where)


def _objects(value: Any):
    """Every object inside `value`, depth first, without recursion."""
    pending = [value]
    while pending:
        current = pending.pop()
        if isinstance(current, dict):
            yield current
            pending.extend(reversed(list(current.values())))
        elif isinstance(current, list):
            pending.extend(reversed(current))


class _Replay:
    """The fold, as the server's `games.store.fold_event` does it, but checking every move; and
    beside it what the server's services read from the log: who sits where, whether the game has
    started, who has moved, the draw on offer, whether the game was adjourned."""

    def __init__(self, record: dict, game_rules: Any, seed: str):
        self.record, self.rules, self.seed = record, game_rules, seed
        self.states: dict[int, Any] = {}
        self.state: Any = None
        self.ended_by: dict[str, Any] | None = None
        self.ending: str | None = None
        self.moves = 0
        self.seats: dict[int, dict] = {}
        self.started = False
        self.moved: set[int] = set()
        self.out: set[int] = set()
        self.offer: dict[str, Any] | None = None
        self.adjourned = False

    def fold(self, event: dict, where: str) -> None:
        kind, seat, payload = event["kind"], event["seat"], event["payload"]
        if not isinstance(payload, dict):
            raise Failure(where, "has no payload object")
        if self.over():
            raise Failure(where, "comes after the game was over")
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
        except RulesError as error:
            raise Failure(where, f"the rules refuse it: {error}") from None
        self._follow(kind, seat, payload, where)
        self.states[event["seq"]] = self.state

    def over(self) -> bool:
        return self.ended_by is not None or (self.state is not None and self.rules.outcome(self.state) is not None)

    def _follow(self, kind: str, seat: Any, payload: dict, where: str) -> None:
        """What the event changes beside the game's state (`games.services.lobby` and `.life`)."""
        kind_of = payload.get("type") if kind == SYSTEM else None
        if kind_of == SEAT_TAKEN:
            self._seat(seat, payload, where)
        elif kind_of == SEAT_LEFT:
            self.seats.pop(seat, None)
        elif kind_of == GAME_STARTED:
            self.started = True
        if kind == MOVE:
            self.moved.add(seat)
            if self.offer is not None and self.offer["by"] == seat:
                self.offer = None  # an offer lapses when its seat moves again
            if self._person(seat):
                self.adjourned = False
        if payload.get("forfeit"):
            self.out.add(seat)
        if kind_of == DRAW_OFFERED:
            self.offer = {"by": seat, "accepted": set()}
        elif kind_of == DRAW_DECLINED:
            self.offer = None
        elif kind_of == DRAW_ACCEPTED and self.offer is not None:
            self.offer["accepted"].add(seat)
        elif kind_of == ADJOURNED:
            self.adjourned = True
        if "result" in payload:
            self._end(kind, seat, payload, where)

    def _seat(self, seat: Any, payload: dict, where: str) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.record.get("players", 0):
            raise Failure(where, f"seats someone at seat {seat!r}, which the game has not")
        if seat in self.seats:
            raise Failure(where, f"seats someone at seat {seat}, which is taken")
        if payload.get("bot") is not None:
            self.seats[seat] = {"username": None, "bot": {"name": payload["bot"], "level": payload.get("level")}}
        else:
            self.seats[seat] = {"username": payload.get("username"), "bot": None}

    def _person(self, seat: Any) -> bool:
        return seat in self.seats and self.seats[seat]["bot"] is None

    def _end(self, kind: str, seat: Any, payload: dict, where: str) -> None:
        """A result carried by an event: only an ending the players (or the abandonment sweep)
        made, whose conditions the log shows, and only with the result that ending gives."""
        kind_of = payload.get("type") if kind == SYSTEM else None
        expected = self._ending_result(kind_of, seat, payload, where)
        if _json(expected) != _json(payload["result"]):
            raise Failure(where, f"carries the result {canonical_json(payload['result'])}, but that ending gives "
                                 f"{canonical_json(expected)}")
        self.ended_by, self.ending = expected, kind_of

    def _ending_result(self, kind_of: Any, seat: Any, payload: dict, where: str) -> dict[str, Any]:
        players = self.record["players"]
        if kind_of == CANCEL and not self.started and seat is None:
            return _shared([], players, "cancelled")
        if kind_of == ABORT and self.started and payload.get("abandoned") and seat is None:
            if not self.adjourned:
                raise Failure(where, "carries a result: aborted as abandoned, but the game was not adjourned since a "
                                     "person last moved")
            return _shared([], players, "abandoned")
        if kind_of == ABORT and self.started and seat in self.seats:
            if self.moved >= set(range(players)):
                raise Failure(where, "carries a result: aborted, but every seat had moved (too late to abort)")
            return _shared([], players, "aborted")
        if kind_of == DRAW_AGREED and self.started and seat is None:
            playing = [index for index in range(players) if index not in self.out]
            if self.offer is None or not set(playing) <= {self.offer["by"], *self.offer["accepted"]}:
                raise Failure(where, "carries a result: a draw, but no draw was offered and accepted by every seat "
                                     "still playing")
            return _shared(playing, players, "draw_agreed")
        raise Failure(where, f"carries a result the rules did not produce ({canonical_json(payload.get('result'))})")

    def ended_how(self) -> str:
        return f"; ended by the event {self.ending}" if self.ending else ""

    def check_seats(self) -> None:
        """The record's `seats` are what the log's seating events made (usernames and bots)."""
        listed = self.record.get("seats")
        if not isinstance(listed, list) or not all(isinstance(entry, dict) for entry in listed):
            raise Failure("the record's seats", "are not a list of seats")
        claimed = {entry.get("seat"): {"username": entry.get("username"), "bot": entry.get("bot")} for entry in listed}
        if len(claimed) != len(listed):
            raise Failure("the record's seats", "name a seat twice")
        for index in sorted(set(claimed) | set(self.seats), key=str):
            logged, said = self.seats.get(index), claimed.get(index)
            if _json(logged) != _json(said):
                raise Failure("the record's seats", f"seat {index} is {_who_text(said) if said else 'empty'} in the "
                                                    f"record but {_who_text(logged) if logged else 'empty'} in the log")

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
        if self.state is not None:
            raise Failure(where, "creates the game a second time")
        self.state = self.rules.setup(payload["players"], payload["options"], self.seed)

    def _move(self, seat: Any, move: Any, public: Any, where: str) -> None:
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


def _shared(winners: list[int], players: int, reason: str) -> dict[str, Any]:
    """The result of an ending the players made, as `games.services.life` words it."""
    share = 1 / len(winners) if winners else 0
    return {"scores": [share if seat in winners else 0 for seat in range(players)], "winners": winners,
            "reason": reason}


def _json(value: Any) -> Any:
    """Compare as JSON does: tuples as lists, 1 as 1.0."""
    return json.loads(json.dumps(value))


def read(path: str, max_bytes: int = MAX_BYTES) -> Any:
    """The record in the file, or a Failure: unreadable, larger than `max_bytes` (read no
    further), more values than any game makes or nested too deeply (`check_shape`, before it
    is read), not JSON, or more than the memory there is."""
    try:
        with open(path, "rb") as file:
            raw = file.read(max_bytes + 1)
    except OSError as error:
        raise Failure("the record", f"cannot be read: {error}") from None
    if len(raw) > max_bytes:
        raise Failure("the record", f"is larger than {max_bytes} bytes (--max-bytes allows more)")
    try:
        check_shape(raw)
        return json.loads(raw)
    except ShapeError as error:
        raise Failure("the record", str(error)) from None
    except RecursionError:
        raise Failure("the record", f"is nested more than {MAX_DEPTH} levels deep") from None
    except MemoryError:
        raise Failure("the record", "is too large to read in the memory there is") from None
    except ValueError as error:  # not UTF-8, not JSON, a number too long
        raise Failure("the record", f"is not JSON: {error}") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rules.verify", description="Check a finished game's record.")
    parser.add_argument("record", help="the record's JSON file (GET /api/games/{id}/record)")
    parser.add_argument("--hash", help="the newest event's hash your client showed: any other fails")
    parser.add_argument("--max-bytes", type=int, default=MAX_BYTES, help=f"refuse a larger file (default {MAX_BYTES})")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        record = read(args.record, args.max_bytes)
    except Failure as failure:
        say(f"FAIL {failure}")
        return 1
    report = verify(record)
    for line in report.checked:
        say(f"ok   {line}")
    if report.failure is None and args.hash is not None and args.hash.strip().lower() != report.last_hash:
        report.failure = Failure("the last hash", f"is {report.last_hash}, not the {args.hash.strip()} you saw")
    if report.failure is not None:
        say(f"FAIL {report.failure}")
        return 1
    say(f"last hash {report.last_hash} (the newest event's: compare it with the one your client showed)")
    say(f"game {record.get('game')} verifies")
    return 0


def say(line: str) -> None:
    """Print a line whatever the record put in it: a lone surrogate ("\\ud800") is valid JSON
    that no output encodes, so what the output's encoding cannot hold is written as an escape."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    print(line.encode(encoding, "backslashreplace").decode(encoding))


if __name__ == "__main__":
    sys.exit(main())
