"""Three phases of `bench.chaos` against its live server (issue 51):

- `analysis_flood`: a person plays a bot; the bot's reply time (from the person's move event to
  the bot's, as the log stamps them) with no analysis queued, then with 20 analyses queued by
  another account (the per-account quota raised to 20 for the run, so all 20 do queue);
- `redis_outage_with_step_clock`: two-seat games on step clocks of 3 s up to the outage's length
  and beyond, created just before Redis is killed for `down` seconds (it keeps nothing: every
  message in it is lost) and started again empty; for each, how long after its deadline, or
  after Redis's return if it fell due meanwhile, its timeout came, and whether any came twice;
- `supervised_kills`: the stream server, the SMTP gateway and the web server SIGKILLed one after
  another under the players' load, and how long until each answers again.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import statistics
import time
import urllib.request

FLOOD = 20


# --- bot replies with and without a flood of analyses -------------------------------------------


def _users(names: list[str]) -> list:
    from django.contrib.auth import get_user_model

    return [get_user_model().objects.get(username=name) for name in names]


def finished_games(creator, guest, count: int, moves: int, rng: random.Random) -> list[int]:
    """`count` public Scavenge games of `moves` random moves, then resigned (played through the
    services in this process, as the players' clients would through the API)."""
    from games import services, store
    from games.models import Game

    finished = []
    for _ in range(count):
        game = services.game_create(creator=creator, rules_id="scavenge", players=2, options={})
        services.game_join(game_id=game.pk, user=guest)
        for _ in range(moves):
            game = Game.objects.get(pk=game.pk)
            if game.status != "active":
                break
            seat = game.to_act[0]
            legal = store.rules_of(game).legal_moves(store.state_at(game), seat)
            services.move_submit(game_id=game.pk, user=[creator, guest][seat], move=rng.choice(legal),
                                 expected_seq=game.seq)
        if Game.objects.get(pk=game.pk).status == "active":
            services.resign(game_id=game.pk, user=creator)
        finished.append(game.pk)
    return finished


def bot_replies(api, token: str, game_id: int, count: int, rng: random.Random) -> list[float]:
    """The person (seat 0) moves `count` times; for each, seconds from its event to the bot's next."""
    from games.models import Event

    replies = []
    for _ in range(count):
        status, game = api.patient("GET", f"/api/games/{game_id}/", token=token)
        if status != 200 or game["status"] != "active":
            break
        if 0 not in game["to_act"]:
            time.sleep(0.2)
            continue
        status, legal = api.patient("GET", f"/api/games/{game_id}/legal-moves/", token=token)
        status, moved = api.patient("POST", f"/api/games/{game_id}/moves/",
                                    {"move": rng.choice(legal["moves"]), "expected_seq": legal["seq"]}, token)
        if status != 201:
            continue
        seq = moved["seq"]
        end = time.monotonic() + 180
        while time.monotonic() < end:
            pair = dict(Event.objects.filter(game_id=game_id, seq__in=[seq, seq + 1]).values_list("seq", "created_at"))
            if seq + 1 in pair:
                replies.append((pair[seq + 1] - pair[seq]).total_seconds())
                break
            time.sleep(0.1)
    return replies


def analysis_flood(api, tokens: list[str], names: list[str], rng: random.Random, moves_each: int = 6) -> dict:
    """Bot replies without and with FLOOD analyses queued by another account (see the module)."""
    from analysis.models import Analysis

    person, flooder = tokens[0], tokens[1]
    creator, guest = _users(names[2:4])
    to_analyse = finished_games(creator, guest, FLOOD, 16, rng)
    status, game = api.patient("POST", "/api/games/", {"rules": "scavenge", "players": 2,
                                                       "bots": [{"seat": 1, "bot": "mcts", "level": 1}]}, person)
    game_id = game["id"]
    quiet = bot_replies(api, person, game_id, moves_each, rng)
    asked = [api.patient("POST", f"/api/games/{target}/analysis", token=flooder)[0] for target in to_analyse]
    queued_before = Analysis.objects.filter(status__in=["queued", "running"]).count()
    flooded = bot_replies(api, person, game_id, moves_each, rng)
    return {
        "quiet": quiet, "flooded": flooded, "asked": asked, "queued_at_start": queued_before,
        "still_queued_or_running": Analysis.objects.filter(status__in=["queued", "running"]).count(),
        "done": Analysis.objects.filter(status="done").count(),
    }


def flood_lines(figures: dict) -> list[str]:
    def summary(values: list[float]) -> str:
        if not values:
            return "no replies"
        return f"median {statistics.median(values):.2f} s, max {max(values):.2f} s over {len(values)} replies"

    codes = {code: figures["asked"].count(code) for code in sorted(set(figures["asked"]))}
    return [
        f"a bot's reply (mcts, Scavenge), no analysis queued: {summary(figures['quiet'])}",
        f"the same game's replies with {FLOOD} analyses asked for by another account (answers {codes}; "
        f"{figures['queued_at_start']} queued or running at the start, {figures['still_queued_or_running']} "
        f"still at the end, {figures['done']} done): {summary(figures['flooded'])}",
    ]


# --- a Redis outage with step clocks ---------------------------------------------------------------


def workers_settled(count: int, timeout: float = 300) -> float | None:
    """Seconds until all `count` Celery workers answer a ping (the SIGKILLed ones have booted
    again), so that the outage measures the outage and not a worker's boot; None if they never do."""
    from project.celery import app

    began = time.monotonic()
    while time.monotonic() - began < timeout:
        try:
            if len(app.control.ping(timeout=1.0)) >= count:
                return round(time.monotonic() - began, 1)
        except Exception:  # noqa: BLE001 - Redis coming back: not yet
            time.sleep(0.5)
    return None



def redis_outage_with_step_clock(redis, names: list[str], down: float) -> dict:
    """See the module doc: lateness from max(deadline, Redis's return), and doubled timeouts."""
    from django.db import connections

    from games import services, time_controls
    from games.models import Deadline, Event

    pairs = [_users(names[n:n + 2]) for n in range(0, 10, 2)]
    games = []
    for n, seconds in enumerate(range(3, 3 + int(down) + 10, 2)):
        first, second = pairs[n % len(pairs)]
        game = services.game_create(creator=first, rules_id="scavenge", players=2, options={},
                                    time_control={"type": "step", "seconds": seconds}, timeout_policy="forfeit")
        services.game_join(game_id=game.pk, user=second)
        games.append((game.pk, Deadline.objects.get(game_id=game.pk).due_at))
    time.sleep(1.0)
    redis.kill()
    down_at = time_controls.now()
    time.sleep(down)
    redis.start()
    back_at = time_controls.now()
    end = time.monotonic() + 120
    ids = [game_id for game_id, _ in games]
    while time.monotonic() < end and Event.objects.filter(game_id__in=ids, kind="timeout").values("game_id").distinct().count() < len(ids):
        time.sleep(0.5)
    connections.close_all()
    late, doubled, missing, while_down = [], 0, 0, []
    for game_id, due_at in games:
        fired = list(Event.objects.filter(game_id=game_id, kind="timeout").values_list("created_at", flat=True))
        doubled += len(fired) > 1
        if not fired:
            missing += 1
            continue
        expected = due_at if fired[0] < down_at else max(due_at, back_at)
        late.append((fired[0] - expected).total_seconds())
        if down_at <= fired[0] < back_at:  # fired through the outage (beat's backstop): late after its deadline
            while_down.append((fired[0] - due_at).total_seconds())
    due_while_down = sum(1 for _, due_at in games if down_at <= due_at <= back_at)
    return {"games": len(games), "due_while_down": due_while_down, "late": sorted(late), "doubled": doubled,
            "missing": missing, "down": down, "while_down": sorted(while_down)}


def outage_lines(figures: dict) -> list[str]:
    late = figures["late"]
    return [
        f"Redis down {figures['down']:.0f} s under the players' load, {figures['games']} games on step clocks "
        f"of 3 to {3 + 2 * (figures['games'] - 1)} s ({figures['due_while_down']} falling due while it was down): "
        f"each timeout after its deadline, or after Redis's return if it fell due meanwhile, "
        f"median {statistics.median(late) if late else 0:.1f} s, at most {max(late, default=0):.1f} s; "
        f"missing {figures['missing']}, doubled {figures['doubled']}; fired while Redis was down: "
        f"{len(figures['while_down'])}, at most {max(figures['while_down'], default=0):.1f} s after their deadline; "
        f"every figure (s, negative: before Redis's return) {[round(value, 1) for value in late]}",
    ]


# --- supervised processes killed ------------------------------------------------------------------


def _smtp_answers(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=2) as line:
        return line.recv(100).startswith(b"220")


def _http_answers(port: int) -> bool:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health/", timeout=2) as answer:
        return answer.status == 200


def _listening(port: int, pid: int) -> bool:
    """Whether process `pid`, or one of its children, listens on `port` (the restarted one, beside
    its pair on the port: with --reuse-port each gunicorn worker has a socket of its own, its
    master none)."""
    import subprocess

    listed = subprocess.run(["ss", "-ltnpH", f"sport = :{port}"], capture_output=True, text=True, check=False).stdout
    children = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True,
                              check=False).stdout.split()
    return any(f"pid={candidate}," in listed for candidate in [str(pid), *children])


def supervised_kills(server, env: dict, until) -> dict[str, tuple[float | None, float | None]]:
    """SIGKILL each program's whole process group (the first of each pair on the port); seconds
    until the port answers again, and until the restarted program itself listens again (None:
    not within 60 and 180 s)."""
    ports = {"streams": int(env["STREAM_PORT"]), "smtp": int(env["SMTP_PORT"]), "web": int(env["PORT"])}
    probes = {
        "streams": lambda: _http_answers(ports["streams"]),
        "smtp": lambda: _smtp_answers(ports["smtp"]),
        "web": lambda: _http_answers(ports["web"]),
    }
    back = {}
    for name, probe in probes.items():
        until(probe, 30)
        pid = int(server.ctl("pid", name).strip() or 0)
        if not pid:
            back[name] = (None, None)
            continue
        os.killpg(pid, signal.SIGKILL)
        killed = time.monotonic()
        time.sleep(0.3)  # the old process gone, not still answering
        answering = round(time.monotonic() - killed, 1) if until(probe, 60, 0.1) else None

        def restarted(name=name, old=pid) -> bool:
            new = int(server.ctl("pid", name).strip() or 0)
            return new not in (0, old) and _listening(ports[name], new)

        relistening = round(time.monotonic() - killed, 1) if until(restarted, 180, 0.2) else None
        back[name] = (answering, relistening)
    return back


def kill_lines(back: dict) -> list[str]:
    def seconds(value: float | None, limit: int) -> str:
        return f"not within {limit} s" if value is None else f"{value:.1f} s"

    parts = ", ".join(f"{name} answering again {seconds(answering, 60)} (the killed one listening again "
                      f"{seconds(relistening, 180)})" for name, (answering, relistening) in back.items())
    return [f"SIGKILL of the first of each pair under the players' load: {parts}"]
