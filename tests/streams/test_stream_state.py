"""A bot plays from its game stream alone: `game_full` carries its seq as the SSE id and the
stream goes on from there (earlier events only when asked for with `after` or Last-Event-ID), and
after each batch of events a `game_state` says who is to act, the clocks, the status and, on the
stream of the seat to act and only there, that seat's legal moves."""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from urllib.parse import urlsplit

import jsonschema
import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient

from tests.api.conftest import start_game
from tests.streams.test_game_stream import _move, _read, _run, _to_act, free_port, start_uvicorn, stop

pytestmark = [pytest.mark.django_db(transaction=True)]
SSE, NDJSON = "text/event-stream", "application/x-ndjson"
STATES = ("game_full", "game_state")
PUBLIC = ("seq", "status", "to_act", "deadline", "deadlines", "result")  # the same on every stream


def _items(text: str, kind: str) -> list[dict]:
    if kind == SSE:
        return [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _events(items: list[dict]) -> list[dict]:
    return [item for item in items if "type" not in item]


def _states(items: list[dict]) -> list[dict]:
    return [item for item in items if item.get("type") in STATES]


def _has_state_at(seq: int, kind: str, types: tuple[str, ...] = ("game_state",)):
    return lambda text: any(item["seq"] == seq and item["type"] in types for item in _states(_items(text, kind)))


async def _open(game_id: int, token: str | None, kind: str, **headers: str):
    if token:
        headers["Authorization"] = f"Token {token}"
    path = f"/api/games/{game_id}/stream/"
    if "after" in headers:
        path += f"?after={headers.pop('after')}"
    response = await AsyncClient().get(path, headers={"Accept": kind, **headers})
    assert response.status_code == 200, response.content
    return response


@pytest.mark.parametrize("kind", [SSE, NDJSON])
def test_game_full_has_its_seq_as_id_and_the_stream_goes_on_from_that_seq(kind):
    """Before: `game_full` had no id and the log was replayed from event 1 after it."""
    game_id, players = start_game("scavenge", 2)
    for _ in range(3):
        _move(_to_act(players, game_id), game_id)
    seq = players[0].get(f"/api/games/{game_id}/").json()["seq"]

    async def scenario():
        stream = await _open(game_id, players[0].token, kind)
        opened = await _read(stream, _has_state_at(seq, kind, ("game_full",)))
        played = await sync_to_async(_move)(await sync_to_async(_to_act)(players, game_id), game_id)
        return opened + await _read(stream, _has_state_at(played["seq"], kind)), played

    text, played = _run(scenario)
    items = _items(text, kind)
    assert items[0]["type"] == "game_full" and items[0]["seq"] == seq
    if kind == SSE:
        assert text.startswith(f"id: {seq}\nevent: game_full\ndata: ")
        assert f"id: {played['seq']}\nevent: game_state\ndata: " in text
    assert [item.get("type") for item in items] == ["game_full", None, "game_state"]  # no replay from event 1
    assert items[1]["seq"] == items[2]["seq"] == played["seq"]


@pytest.mark.parametrize("kind", [SSE, NDJSON])
def test_after_or_last_event_id_asks_for_the_events_after_it(kind):
    game_id, players = start_game("scavenge", 2)
    for _ in range(3):
        _move(_to_act(players, game_id), game_id)
    everything = players[0].get(f"/api/games/{game_id}/events/").json()
    seq = everything["seq"]

    async def scenario():
        by_query = await _open(game_id, players[0].token, kind, after="2")
        by_header = await _open(game_id, players[0].token, kind, **{"Last-Event-ID": "2"})
        at_full = await _open(game_id, players[0].token, kind, **{"Last-Event-ID": str(seq)})  # a reconnect
        return [await _read(stream, _has_state_at(seq, kind)) for stream in (by_query, by_header)] + [
            await _read(at_full, lambda text: False, limit=1.5)]

    by_query, by_header, at_full = _run(scenario)
    for text in (by_query, by_header):
        items = _items(text, kind)
        assert _events(items) == json.loads(json.dumps(everything["events"][2:]))
        assert [item["type"] for item in _states(items)] == ["game_full", "game_state"]
    assert [item.get("type") for item in _items(at_full, kind)] == ["game_full"]


def test_a_resume_point_past_the_games_seq_is_read_as_the_games_seq(monkeypatch):
    """`after` (or Last-Event-ID) beyond any event the game has (a client's bug or a hostile
    one, up to 25 digits) is read as the game's seq: the next move's event still comes, and the
    stream is not read afresh on every wake for events that cannot exist."""
    game_id, players = start_game("scavenge", 2)

    async def scenario():
        streams = [await _open(game_id, players[0].token, NDJSON, after="9" * 25),
                   await _open(game_id, players[0].token, NDJSON, **{"Last-Event-ID": str(10**12)})]
        played = await sync_to_async(_move)(await sync_to_async(_to_act)(players, game_id), game_id)
        return [await _read(stream, _has_state_at(played["seq"], NDJSON)) for stream in streams], played

    texts, played = _run(scenario)
    for text in texts:
        assert [event["seq"] for event in _events(_items(text, NDJSON))] == [played["seq"]]


def test_a_stream_opened_at_the_games_seq_reads_the_log_from_there_not_from_event_1(monkeypatch):
    from games import selectors

    game_id, players = start_game("scavenge", 2)
    for _ in range(4):
        _move(_to_act(players, game_id), game_id)
    seq = players[0].get(f"/api/games/{game_id}/").json()["seq"]
    reads, original = [], selectors.events_after
    monkeypatch.setattr(selectors, "events_after", lambda **arguments: reads.append(arguments) or original(**arguments))

    async def scenario():
        stream = await _open(game_id, players[0].token, NDJSON)
        played = await sync_to_async(_move)(await sync_to_async(_to_act)(players, game_id), game_id)
        return await _read(stream, _has_state_at(played["seq"], NDJSON)), played

    text, played = _run(scenario)
    assert [event["seq"] for event in _events(_items(text, NDJSON))] == [played["seq"]]
    assert reads and all(read["after"] >= seq for read in reads)


def test_a_seats_moves_on_its_stream_cost_no_read_of_the_game_of_their_own(monkeypatch):
    """The state item takes the seat's moves from the read of the game the stream's batch came
    with (`events_after`, shared by the game's streams): after `game_full`, a seat's stream reads
    the game no other way, however many of its turns come (the streams' reads run in the event
    loop's pool; the moves, made by the test's clients, elsewhere)."""
    from games import selectors

    game_id, players = start_game("scavenge", 2)
    reads = []
    for name in ("game_get", "game_for"):
        original = getattr(selectors, name)

        def counted(_original=original, _name=name, **arguments):
            reads.append((_name, threading.current_thread().name))
            return _original(**arguments)

        monkeypatch.setattr(selectors, name, counted)

    async def scenario():
        streams = [await _open(game_id, players[seat].token, NDJSON) for seat in (0, 1)]
        opened = len(reads)
        texts = []
        for _ in range(6):  # each move's state read by both streams before the next move
            seq = (await sync_to_async(_move)(await sync_to_async(_to_act)(players, game_id), game_id))["seq"]
            texts += [await _read(stream, _has_state_at(seq, NDJSON), limit=30) for stream in streams]
        return opened, texts

    opened, texts = _run(scenario)
    moves_told = [state for text in texts for state in _states(_items(text, NDJSON))
                  if state["legal_moves"] and state["legal_moves"]["moves"]]
    assert len(moves_told) >= 5  # the seat to act got its moves on its stream, turn after turn
    streams_reads = [read for read in reads[opened:] if read[1].startswith("asyncio")]
    assert streams_reads == []


def test_every_state_item_says_who_acts_the_clocks_and_the_status_and_only_the_seat_to_act_gets_its_moves():
    """Terrain Vague: hidden information, simultaneous steps. Each seat's stream carries its own
    moves exactly as /legal-moves/ gives them, never the other seat's; a spectator's none; the
    public part of a state is the same on every stream."""
    game_id, players = start_game("terrain_vague", 2)
    listed: dict[tuple[int, int], dict] = {}  # (seat, seq): that seat's legal moves then

    def play(moves: int) -> int:
        for _ in range(moves):
            game = players[0].get(f"/api/games/{game_id}/").json()
            if game["status"] != "active":
                break
            for seat in game["to_act"]:
                listed[seat, game["seq"]] = players[seat].get(f"/api/games/{game_id}/legal-moves/").json()
            _move(players[game["to_act"][0]], game_id)
        return players[0].get(f"/api/games/{game_id}/").json()

    async def scenario():
        streams = [await _open(game_id, players[0].token, NDJSON), await _open(game_id, players[1].token, NDJSON),
                   await _open(game_id, None, NDJSON)]
        last = await sync_to_async(play)(12)
        return [await _read(stream, _has_state_at(last["seq"], NDJSON), limit=30) for stream in streams], last

    texts, last = _run(scenario)
    by_seat = [_items(text, NDJSON) for text in texts]
    publics = []
    for seat, items in zip((0, 1, None), by_seat):
        states = _states(items)
        assert states[0]["type"] == "game_full" and states[-1]["seq"] == last["seq"]
        for before, item in zip(items, items[1:]):
            if item.get("type") == "game_state":  # follows the event whose state it is
                assert "type" not in before and before["seq"] == item["seq"]
        for state in states:
            moves = state["legal_moves"]
            if seat is None:
                assert moves is None
                continue
            assert moves["seat"] == seat and moves["seq"] == state["seq"]  # never another seat's
            assert bool(moves["moves"]) == (seat in state["to_act"] and state["status"] == "active")
            if (seat, state["seq"]) in listed:
                assert moves == listed[seat, state["seq"]]
        publics.append({state["seq"]: _public(state) for state in states})
    for seq in set(publics[0]) & set(publics[1]) & set(publics[2]):  # each stream's batches are its own
        assert publics[0][seq] == publics[1][seq] == publics[2][seq]
    final = publics[2][last["seq"]]
    assert {key: final[key] for key in ("status", "to_act", "deadline")} == {
        key: last[key] for key in ("status", "to_act", "deadline")}
    assert [entry["due_at"] for entry in final["deadlines"]] == [entry["due_at"] for entry in last["deadlines"]]


def _public(state: dict) -> dict:
    """A state's public part, without its clocks' `seconds_left` (counted when it is read)."""
    said = {key: state[key] for key in PUBLIC}
    said["deadlines"] = [{key: value for key, value in entry.items() if key != "seconds_left"} for entry in said["deadlines"]]
    return said


def test_every_item_of_a_game_stream_is_what_the_schema_says(client):
    """Each item, state or event, matches exactly one branch of the schema's `GameStreamItem`."""
    document = json.loads(client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content)
    item_schema = jsonschema.Draft202012Validator(
        {"$ref": "#/components/schemas/GameStreamItem", "components": document["components"]})
    game_id, players = start_game("scavenge", 2)

    async def scenario():
        seated, watcher = await _open(game_id, players[0].token, NDJSON), await _open(game_id, None, NDJSON, after="0")
        played = await sync_to_async(_move)(await sync_to_async(_to_act)(players, game_id), game_id)
        return [await _read(stream, _has_state_at(played["seq"], NDJSON)) for stream in (seated, watcher)]

    texts = _run(scenario)
    items = [item for text in texts for item in _items(text, NDJSON)]
    assert {item.get("type") for item in items} == {"game_full", "game_state", None}
    for item in items:
        item_schema.validate(item)


# --- a stream-only bot, over real HTTP -----------------------------------------------------------


class StreamBot(threading.Thread):
    """A bot that plays from its game stream alone: it opens the stream once and, at each state
    that gives it moves, sends one of them. Every request it makes is counted."""

    def __init__(self, streams_port: int, api_url: str, token: str, game_id: int, seed: int):
        super().__init__(daemon=True)
        self.streams_port, self.api = streams_port, urlsplit(api_url)
        self.token, self.game_id, self.rnd = token, game_id, random.Random(seed)
        self.requests, self.moves, self.refused, self.last_state = 0, 0, [], None

    def run(self) -> None:
        stream = self._stream()
        acted_at = mine = -1  # the seq of the last state it moved at; its own last move's seq
        while True:
            line = stream.readline()
            if not line:
                return  # the stream of a finished game ends after its last state
            if not line.strip():
                continue  # a keep-alive
            item = json.loads(line)
            if item.get("type") not in STATES:
                continue
            self.last_state, legal = item, item["legal_moves"]
            # A state older than its own last move (sent before that move landed, in a step where
            # it still had to act) is past: its moves are no longer asked for.
            if legal and legal["moves"] and legal["seq"] > acted_at and legal["seq"] >= mine:
                acted_at = legal["seq"]
                mine = self._post(self.rnd.choice(legal["moves"]), legal["seq"])

    def _stream(self):
        for _ in range(200):  # the stream server is starting
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.streams_port, timeout=60)
                conn.request("GET", f"/api/games/{self.game_id}/stream/",
                             headers={"Authorization": f"Token {self.token}", "Accept": NDJSON})
            except ConnectionRefusedError:
                time.sleep(0.1)
                continue
            self.requests += 1
            response = conn.getresponse()
            assert response.status == 200, response.read()
            return response
        raise AssertionError("the stream server did not start")

    def _post(self, move, seq: int) -> int:
        """Send the move; the seq of its event (-1: refused)."""
        conn = http.client.HTTPConnection(self.api.hostname, self.api.port, timeout=60)
        body = json.dumps({"move": move, "expected_seq": seq})
        conn.request("POST", f"/api/games/{self.game_id}/moves/", body=body,
                     headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json"})
        self.requests += 1
        answer = conn.getresponse()
        body = answer.read()
        conn.close()
        if answer.status != 201:
            self.refused.append((answer.status, body))
            return -1
        self.moves += 1
        return json.loads(body)["seq"]


def _until_done(bots: list[StreamBot], quiet_for: float = 60) -> None:
    """Until every bot's stream has ended; fails when no bot saw a newer state for `quiet_for`
    seconds (the game stalled: no bot was told it could move)."""
    newest, heard_at = -1, time.monotonic()
    while any(bot.is_alive() for bot in bots):
        for bot in bots:
            bot.join(timeout=0.5)
        seen = max(bot.last_state["seq"] if bot.last_state else -1 for bot in bots)
        if seen > newest:
            newest, heard_at = seen, time.monotonic()
        assert time.monotonic() - heard_at < quiet_for, f"the game stalled at seq {newest}"


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.parametrize("rules_id", ["toy_race", "terrain_vague"])
def test_two_stream_only_bots_play_a_whole_game_with_one_request_per_move_of_their_own(live_server, rules_id):
    """Before: a bot had to ask /legal-moves/ after each of the other seat's moves."""
    game_id, players = start_game(rules_id, 2)
    port = free_port()
    server = start_uvicorn(port)
    bots = [StreamBot(port, live_server.url, player.token, game_id, seed) for seed, player in enumerate(players)]
    try:
        for bot in bots:
            bot.start()
        _until_done(bots)
    finally:
        stop(server)
    game = players[0].get(f"/api/games/{game_id}/").json()
    events = players[0].get(f"/api/games/{game_id}/events/").json()["events"]
    assert game["status"] == "finished"
    for seat, bot in enumerate(bots):
        assert bot.refused == [], bot.refused
        assert bot.moves == sum(1 for event in events if event["kind"] == "move" and event["seat"] == seat) > 0
        assert bot.requests == 1 + bot.moves  # the stream, then its POSTs: nothing else
        assert bot.last_state["type"] == "game_state" and bot.last_state["status"] == "finished"
        assert bot.last_state["result"] == game["result"]
