"""HTTP load for the API benchmark: N clients, each with two accounts playing its own Scavenge
game through the API (random legal moves), for a fixed time. Only the standard library, so the
load generator adds no dependency."""

from __future__ import annotations

import http.client
import json
import random
import statistics
import threading
import time
import uuid
from dataclasses import dataclass
from urllib.parse import urlparse


@dataclass
class Result:
    moves: int
    seconds: float
    p50_ms: float
    p99_ms: float
    errors: int


class Client:
    def __init__(self, base: str):
        parsed = urlparse(base)
        self.conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)

    def call(self, method: str, path: str, body=None, token: str | None = None) -> tuple[int, dict]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        self.conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
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


def _account(client: Client) -> str:
    status, body = client.call("POST", "/api/accounts/", {"username": f"b{uuid.uuid4().hex[:12]}",
                                                           "password": "bench password 1"})
    assert status == 201, body
    return body["token"]


def _new_game(client: Client, tokens: list[str]) -> int:
    status, game = client.call("POST", "/api/games/", {"rules": "scavenge", "players": 2}, tokens[0])
    assert status == 201, game
    client.call("POST", f"/api/games/{game['id']}/join/", None, tokens[1])
    return game["id"]


class Player(threading.Thread):
    """One client: accounts and a first game are made before the clock starts (password hashing
    is deliberately slow and is not what this measures); then it plays until told to stop."""

    def __init__(self, base: str, seed: int, ready: threading.Barrier, stop: threading.Event):
        super().__init__()
        self.base, self.rnd, self.ready, self.stop = base, random.Random(seed), ready, stop
        self.latencies: list[float] = []
        self.errors: list = []

    def run(self) -> None:
        try:
            client = Client(self.base)
            tokens = [_account(client), _account(client)]
            game_id = _new_game(client, tokens)
        finally:
            self.ready.wait()
        try:
            while not self.stop.is_set():
                game_id = self._step(client, tokens, game_id)
        except Exception as error:  # reported with the figures, never silently dropped
            self.errors.append(repr(error))

    def _step(self, client: Client, tokens: list[str], game_id: int) -> int:
        _, game = client.call("GET", f"/api/games/{game_id}/", token=tokens[0])
        if game["status"] == "finished":
            return _new_game(client, tokens)
        token = tokens[game["to_act"][0]]
        _, listed = client.call("GET", f"/api/games/{game_id}/legal-moves/", token=token)
        started = time.perf_counter()
        status, _ = client.call("POST", f"/api/games/{game_id}/moves/",
                                {"move": self.rnd.choice(listed["moves"]), "expected_seq": listed["seq"]}, token)
        self.latencies.append(time.perf_counter() - started)
        if status != 201:
            self.errors.append(status)
        return game_id


def run(base: str, clients: int, seconds: float) -> Result:
    ready, stop = threading.Barrier(clients + 1), threading.Event()
    players = [Player(base, n, ready, stop) for n in range(clients)]
    for player in players:
        player.start()
    ready.wait()
    started = time.monotonic()
    time.sleep(seconds)
    stop.set()
    for player in players:
        player.join()
    elapsed = time.monotonic() - started
    latencies = [latency for player in players for latency in player.latencies]
    errors = [error for player in players for error in player.errors]
    if len(latencies) < 2:
        raise RuntimeError(f"too few moves were measured; errors: {errors[:5]}")
    if errors:
        print(f"errors: {errors[:10]}")
    cuts = statistics.quantiles(latencies, n=100)
    return Result(len(latencies), elapsed, cuts[49] * 1000, cuts[98] * 1000, len(errors))
