"""HTTP load for the API benchmark: N clients, each with two accounts playing its own two-seat
Scavenge game through the API (random legal moves), for a fixed time. Only the standard library,
orjson and the project's own rules package (both the server's already), so the load generator adds
no dependency.

Two kinds of client:
- `one` plays as a good client does: one POST per move. The answer to a move holds the game after
  it and the mover's next moves; when the other seat is to act, the client lists that seat's
  moves itself from the view it was given (Scavenge hides nothing but its dice's future, so the
  rules package knows the moves exactly, as a boardgame.io client does). It reads the game (GET)
  only after a 409 or a 422, and when a game ends.
- `two` is a plain REST client, which knows no rules: GET the mover's legal moves, then POST one.
  Whose turn it is comes from the last move's answer (the game's `to_act`), and so do the moves
  when that answer says the mover still acts (`your_turn`: a turn of several actions, a
  simultaneous step; never in Scavenge, whose seats take turns).
- `three` is the loop of the first benchmark (and the web page's client until the game's answer
  held the reader's legal moves): GET the game, GET the legal moves, POST the move.
- `page` is the web page's client: the mover's page GETs the game, whose answer holds its legal
  moves, then POSTs the move. Whose turn it is comes from the last move's answer, as a page hears
  it from its stream. Against a server whose game answer has no moves it GETs them, as that
  server's page did.
Latency is timed on the POSTs only.
"""

from __future__ import annotations

import http.client
import random
import socket
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlparse

import orjson

MODES = ("one", "two", "three", "page")


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
    """One keep-alive HTTP/1.1 connection on a plain socket. The load generator shares the
    machine with the server it measures, so it should cost as little as a client can: the
    standard library's `http.client` parses every answer's headers through the e-mail package,
    and with it the load generator took about 0.5 ms of CPU a move, with this 0.25
    (bench/RESULTS.md). A request leaves in one write, as the peer's Node `fetch` sends its own
    (`http.client` sends the headers and the body in two). This reads the status line,
    `Content-Length` (or a chunked body) and `Connection`, all a JSON API's answer needs."""

    def __init__(self, base: str):
        parsed = urlparse(base)
        self.host, self.port = parsed.hostname, parsed.port
        self.sock: socket.socket | None = None
        self.buffer = b""
        self.requests = 0

    def call(self, method: str, path: str, body=None, token: str | None = None) -> tuple[int, dict]:
        status, data = self.fetch(method, path, body, token)
        return status, orjson.loads(data or b"null")

    def fetch(self, method: str, path: str, body=None, token: str | None = None,
              accept: str = "application/json") -> tuple[int, bytes]:
        """The answer's status and body as sent (`call` reads it as JSON)."""
        payload = orjson.dumps(body) if body is not None else b""
        head = (f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nAccept: {accept}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n")
        if token:
            head += f"Authorization: Token {token}\r\n"
        request = head.encode() + b"\r\n" + payload
        self.requests += 1
        try:
            status, data = self._exchange(request)
        except (ConnectionError, _Closed):
            # The server closed an idle keep-alive connection: open a new one, as any client does.
            self._close()
            status, data = self._exchange(request)
        return status, data

    def _exchange(self, request: bytes) -> tuple[int, bytes]:
        if self.sock is None:
            self.sock = socket.create_connection((self.host, self.port), timeout=60)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.sendall(request)
        return self._response()

    def _close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock, self.buffer = None, b""

    def _response(self) -> tuple[int, bytes]:
        end = self._until(b"\r\n\r\n")
        head, self.buffer = self.buffer[:end].decode("latin-1"), self.buffer[end + 4:]
        lines = head.split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = self._take(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body = self._chunked()
        else:  # the body runs to the connection's end
            while self._fill():
                pass
            body = self.buffer
            self._close()
            return status, body
        if headers.get("connection", "").lower() == "close":
            self._close()
        return status, body

    def _fill(self) -> bool:
        data = self.sock.recv(65536)
        self.buffer += data
        return bool(data)

    def _until(self, marker: bytes) -> int:
        while (end := self.buffer.find(marker)) < 0:
            if not self._fill():
                raise _Closed
        return end

    def _take(self, size: int) -> bytes:
        while len(self.buffer) < size:
            if not self._fill():
                raise _Closed
        taken, self.buffer = self.buffer[:size], self.buffer[size:]
        return taken

    def _chunked(self) -> bytes:
        parts = []
        while True:
            end = self._until(b"\r\n")
            size = int(self.buffer[:end].split(b";")[0], 16)
            self.buffer = self.buffer[end + 2:]
            parts.append(self._take(size))
            self._take(2)  # the chunk's CRLF
            if size == 0:
                return b"".join(parts)


class _Closed(Exception):
    """The server closed the connection before the whole answer arrived."""


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
        self.next_seat = 0  # `page`: the seat the last move's answer said acts next

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
                {"one": self._one, "two": self._two, "three": self._three, "page": self._page}[self.mode]()
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

    def _two(self) -> None:
        known = self.known
        if not self._playing(known):
            return
        listed = known if known.get("moves") else self.client.call(
            "GET", f"/api/games/{self.game_id}/legal-moves/", token=self.tokens[known["seat"]])[1]
        status, body = self._post(known["seat"], self.rnd.choice(listed["moves"]), listed["seq"])
        if status == 201:
            self.stored += 1
            after = body["game"]
            if after["status"] != "active":
                self.known = {"status": after["status"]}
            elif after["your_turn"]:  # the answer holds the mover's next moves
                self.known = {"status": "active", "seat": after["your_seat"], "seq": after["seq"], "moves": after["moves"]}
            else:
                self.known = {"status": "active", "seat": after["to_act"][0]}
        else:
            self.errors.append(status)
            self.known = self._read(self.game_id)

    def _three(self) -> None:
        known = self._read(self.game_id)
        if not self._playing(known):
            return
        status, _ = self._post(known["seat"], self.rnd.choice(known["moves"]), known["seq"])
        if status == 201:
            self.stored += 1
        else:
            self.errors.append(status)

    def _page_read(self, game_id: int, seat: int) -> dict:
        """What the mover's page reads before a move: the game as that seat sees it, whose answer
        holds its legal moves (a server from before they were in it: GET them, as its page did).
        `seat` is the one the news named (a move's answer tells whose turn follows); the game is
        read again as the seat to act where it was another (a game's first move)."""
        _, game = self.client.call("GET", f"/api/games/{game_id}/", token=self.tokens[seat])
        if game["status"] == "active" and seat not in game["to_act"]:
            seat = game["to_act"][0]
            _, game = self.client.call("GET", f"/api/games/{game_id}/", token=self.tokens[seat])
        if game["status"] != "active":
            return {"status": game["status"]}
        if "moves" not in game:
            game = self.client.call("GET", f"/api/games/{game_id}/legal-moves/", token=self.tokens[seat])[1]
        return {"status": "active", "seq": game["seq"], "seat": seat, "moves": game["moves"]}

    def _page(self) -> None:
        known = self._page_read(self.game_id, self.next_seat)
        if not self._playing(known):
            self.next_seat = 0
            return
        status, body = self._post(known["seat"], self.rnd.choice(known["moves"]), known["seq"])
        if status == 201:
            self.stored += 1
            self.next_seat = (body["game"]["to_act"] or [0])[0]
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
