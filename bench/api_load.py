"""HTTP load for the API benchmark: N clients, each with two accounts playing its own two-seat
Scavenge game through the API (random legal moves), for a fixed time. Only the standard library
and the project's own rules package, so the load generator adds no dependency.

Two kinds of client:
- `one` plays as a good client does: one POST per move. The answer to a move holds the game after
  it and the mover's next moves; when the other seat is to act, the client lists that seat's
  moves itself from the view it was given (Scavenge hides nothing but its dice's future, so the
  rules package knows the moves exactly, as a boardgame.io client does). It reads the game (GET)
  only after a 409 or a 422, and when a game ends.
- `three` is the loop of the first benchmark: GET the game, GET the legal moves, POST the move.
Latency is timed on the POSTs only.
"""

from __future__ import annotations

import http.client
import json
import random
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlparse

MODES = ("one", "three")


@dataclass
class Result:
    mode: str
    clients: int
    moves: int  # stored (201)
    seconds: float
    p50_ms: float
    p99_ms: float
    requests: int
    conflicts: int
    errors: int
    refusals: dict = field(default_factory=dict)  # "409 stale_seq": how many, the conflicts by kind

    @property
    def per_second(self) -> float:
        return self.moves / self.seconds


class Client:
    def __init__(self, base: str):
        parsed = urlparse(base)
        self.host, self.port = parsed.hostname, parsed.port
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        self.requests = 0

    def call(self, method: str, path: str, body=None, token: str | None = None) -> tuple[int, dict]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        self.requests += 1
        payload = json.dumps(body) if body is not None else None
        try:
            self.conn.request(method, path, body=payload, headers=headers)
            response = self.conn.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            # The server closed an idle keep-alive connection: open a new one, as any client does.
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
            self.conn.request(method, path, body=payload, headers=headers)
            response = self.conn.getresponse()
        return response.status, json.loads(response.read() or b"null")


def wait_for(url: str, timeout: float = 30.0) -> None:
    parsed = urlparse(url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=2)
            conn.request("GET", parsed.path)
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


def _new_game(client: Client, tokens: list[str]) -> int:
    status, game = client.call("POST", "/api/games/", {"rules": "scavenge", "players": 2}, tokens[0])
    assert status == 201, game
    client.call("POST", f"/api/games/{game['id']}/join/", None, tokens[1])
    return game["id"]


class Player(threading.Thread):
    """One client: its first game is made before the clock starts; then it plays until told to
    stop, starting a new game whenever one ends."""

    def __init__(self, base: str, mode: str, tokens: list[str], seed: int, ready: threading.Barrier,
                 stop: threading.Event):
        super().__init__(daemon=True)
        self.base, self.mode, self.tokens = base, mode, tokens
        self.rnd, self.ready, self.stop = random.Random(seed), ready, stop
        self.latencies: list[float] = []
        self.errors: list = []
        self.conflicts = 0
        self.refusals: Counter = Counter()
        self.stored = 0
        self.client: Client | None = None

    def run(self) -> None:
        import rules

        self.rules = rules.catalog()["scavenge"]
        try:
            self.client = Client(self.base)
            self.game_id = self._start()
        finally:
            self.ready.wait()
        self.client.requests = 0
        try:
            while not self.stop.is_set():
                self._one() if self.mode == "one" else self._three()
        except Exception as error:  # reported with the figures, never silently dropped
            self.errors.append(repr(error))

    def _start(self) -> int:
        game_id = _new_game(self.client, self.tokens)
        self.known = self._read(game_id)
        return game_id

    def _read(self, game_id: int) -> dict:
        """What to play next, read from the API (GET the game, GET the mover's moves)."""
        _, game = self.client.call("GET", f"/api/games/{game_id}/", token=self.tokens[0])
        if game["status"] != "active":
            return {"status": game["status"]}
        seat = game["to_act"][0]
        _, listed = self.client.call("GET", f"/api/games/{game_id}/legal-moves/", token=self.tokens[seat])
        return {"status": "active", "seq": listed["seq"], "seat": seat, "moves": listed["moves"]}

    def _post(self, seat: int, move: dict, seq: int) -> tuple[int, dict]:
        started = time.perf_counter()
        status, body = self.client.call("POST", f"/api/games/{self.game_id}/moves/",
                                        {"move": move, "expected_seq": seq}, self.tokens[seat])
        self.latencies.append(time.perf_counter() - started)
        return status, body

    def _one(self) -> None:
        known = self.known
        if not self._playing(known):
            return
        status, body = self._post(known["seat"], self.rnd.choice(known["moves"]), known["seq"])
        if status == 201:
            self.stored += 1
            self.known = self._next_from(body["game"])
        elif status in (409, 422):
            self.conflicts += 1
            self.refusals[f"{status} {(body or {}).get('code', '')}"] += 1
            self.known = self._read(self.game_id)
        else:
            self.errors.append(status)
            self.known = self._read(self.game_id)

    def _playing(self, known: dict) -> bool:
        """Whether the game goes on; if it ended, a new one is started."""
        if known["status"] == "active":
            return True
        self.game_id = self._start()
        return False

    def _next_from(self, after: dict) -> dict:
        if after["status"] != "active":
            return {"status": after["status"]}
        seat = after["to_act"][0]
        if seat == after["your_seat"]:
            moves = after["moves"]
        else:  # the other seat's moves, from the view the answer gave
            state = self.rules.sample_state(after["view"], after["your_seat"], self.rnd)
            moves = self.rules.legal_moves(state, seat)
        return {"status": "active", "seq": after["seq"], "seat": seat, "moves": moves}

    def _three(self) -> None:
        known = self._read(self.game_id)
        if not self._playing(known):
            return
        status, _ = self._post(known["seat"], self.rnd.choice(known["moves"]), known["seq"])
        if status == 201:
            self.stored += 1
        else:
            self.errors.append(status)


def run(base: str, tokens: list[list[str]], mode: str, clients: int, seconds: float, seed: int = 0) -> Result:
    ready, stop = threading.Barrier(clients + 1), threading.Event()
    players = [Player(base, mode, tokens[n], seed * 1000 + n, ready, stop) for n in range(clients)]
    for player in players:
        player.start()
    ready.wait()
    started = time.monotonic()
    time.sleep(seconds)
    stop.set()
    for player in players:
        player.join(timeout=120)
    elapsed = time.monotonic() - started
    latencies = [latency for player in players for latency in player.latencies]
    errors = [error for player in players for error in player.errors]
    if len(latencies) < 2:
        raise RuntimeError(f"too few moves were measured; errors: {errors[:5]}")
    if errors:
        print(f"errors: {errors[:10]}", flush=True)
    cuts = statistics.quantiles(latencies, n=100)
    return Result(mode, clients, sum(player.stored for player in players), elapsed, cuts[49] * 1000, cuts[98] * 1000,
                  sum(player.client.requests for player in players if player.client),
                  sum(player.conflicts for player in players), len(errors),
                  dict(sum((player.refusals for player in players), Counter())))
