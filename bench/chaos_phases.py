"""Three phases of `bench.chaos` against its live server (issue 51):

- `analysis_flood`: a person plays a bot; the bot's reply time (from the person's move event to
  the bot's, as the log stamps them) with no analysis queued, then with 20 analyses queued by
  another account (the per-account quota raised to 20 for the run, so all 20 do queue);
- `redis_outage_with_step_clock`: two-seat games on step clocks of 3 s up to the outage's length
  and beyond, created just before Redis is killed for `down` seconds (it keeps nothing: every
  message in it is lost) and started again empty; for each, how long after its deadline, or
  after Redis's return if it fell due meanwhile, its timeout came, and whether any came twice;
- `supervised_kills`: the stream server, the SMTP gateway and the web server SIGKILLed one after
  another under the players' load, and how long until each answers again;
- `worker_kills`: one bots worker of its pair SIGKILLed right after a person's move, and the bot's
  reply time; beat SIGKILLed with step clocks falling due, and their timeouts' lateness.
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


def bot_replies(api, token: str, game_id: int, count: int, rng: random.Random, after_first=None) -> list[float]:
    """The person (seat 0) moves `count` times; for each, seconds from its event to the bot's next
    (None: no reply within 180 s). `after_first()` runs right after the first move is answered 201
    (`worker_kills`: a SIGKILL)."""
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
        if after_first is not None:
            after_first()
            after_first = None
        seq = moved["seq"]
        end = time.monotonic() + 180
        reply = None
        while time.monotonic() < end:
            pair = dict(Event.objects.filter(game_id=game_id, seq__in=[seq, seq + 1]).values_list("seq", "created_at"))
            if seq + 1 in pair:
                reply = (pair[seq + 1] - pair[seq]).total_seconds()
                break
            time.sleep(0.1)
        replies.append(reply)
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
    def summary(values: list[float | None]) -> str:
        values = [value for value in values if value is not None]
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


HELD = -1.0  # supervised_kills: the web server's port is supervisord's


# --- a Celery worker of a pair, and beat, killed ----------------------------------------------------


def _restarted(server, name: str, old: int, timeout: float = 180) -> float | None:
    """Seconds until supervisord runs `name` again under a new pid (None: not within `timeout`)."""
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        new = int(server.ctl("pid", name).strip() or 0)
        if new not in (0, old) and server.status().get(name) == "RUNNING":
            return round(time.monotonic() - began, 1)
        time.sleep(0.2)
    return None


def worker_kills(server, api, token: str, names: list[str], rng: random.Random, rounds: int = 2) -> dict:
    """Issue 51's "a supervised process killed under load answers again within 10 s", for the
    Celery workers and beat (docs/decisions/0035-worker-pairs.md):

    - bots: a person plays a bot (Scavenge, mcts level 1); right after one of the person's moves
      the first bots worker of the pair (`workers:bots-0`, main process and pool) is SIGKILLed.
      The figure is the seconds from that move to the bot's reply: the other of the pair takes the
      turn at once, unless the killed one had already taken it, in which case the consumers'
      sweep sends it again once its row's lease is over. Then the next replies, while the killed
      worker starts again, and how long that start took;
    - beat: SIGKILLed with forfeit games on step clocks of 2 to 12 s, due while it starts again
      (it runs alone: two would double the schedules). Each timeout's lateness after its deadline
      (the deadlines workers hold those sent up to 5 s ahead; the rest wait for beat's first sweep
      or its backstop), and how long beat took to run again."""
    from django.db import connections

    from games import services
    from games.models import Deadline, Event

    bots = {"at_kill": [], "after": [], "restart": []}
    for _ in range(rounds):
        _, game = api.patient("POST", "/api/games/", {"rules": "scavenge", "players": 2,
                                                      "bots": [{"seat": 1, "bot": "mcts", "level": 1}]}, token)
        bot_replies(api, token, game["id"], 2, rng)  # warm: both of the pair have taken turns
        old = int(server.ctl("pid", "workers:bots-0").strip() or 0)

        def kill() -> None:
            server.kill_program("workers:bots-0")

        replies = bot_replies(api, token, game["id"], 4, rng, after_first=kill)
        bots["at_kill"].append(replies[0] if replies else None)
        bots["after"].extend(replies[1:])
        bots["restart"].append(_restarted(server, "workers:bots-0", old))
    first, second = _users(names[0:2])
    games = []
    for seconds in range(2, 13, 2):
        game = services.game_create(creator=first, rules_id="scavenge", players=2, options={},
                                    time_control={"type": "step", "seconds": seconds}, timeout_policy="forfeit")
        services.game_join(game_id=game.pk, user=second)
        games.append((game.pk, Deadline.objects.get(game_id=game.pk).due_at))
    old = int(server.ctl("pid", "beat").strip() or 0)
    server.kill_program("beat")
    beat_back = _restarted(server, "beat", old)
    end = time.monotonic() + 120
    ids = [game_id for game_id, _ in games]
    while time.monotonic() < end and Event.objects.filter(game_id__in=ids, kind="timeout").values("game_id").distinct().count() < len(ids):
        time.sleep(0.5)
    connections.close_all()
    late, missing = [], 0
    for game_id, due_at in games:
        fired = list(Event.objects.filter(game_id=game_id, kind="timeout").values_list("created_at", flat=True))
        if fired:
            late.append(round((fired[0] - due_at).total_seconds(), 1))
        else:
            missing += 1
    return {"bots": bots, "beat": {"back": beat_back, "late": late, "missing": missing}}


def worker_kill_lines(figures: dict) -> list[str]:
    def seconds(value: float | None) -> str:
        return "none within 180 s" if value is None else f"{value:.1f} s"

    bots, beat = figures["bots"], figures["beat"]
    after = [value for value in bots["after"] if value is not None]
    return [
        f"SIGKILL of workers:bots-0 right after a person's move: the bot's reply to that move "
        f"{', '.join(seconds(value) for value in bots['at_kill'])}; the next replies, while it starts again, "
        f"median {statistics.median(after) if after else 0:.2f} s, at most {max(after, default=0):.2f} s "
        f"({len(bots['after']) - len(after)} unanswered); the killed worker running again after "
        f"{', '.join(seconds(value) for value in bots['restart'])}",
        f"SIGKILL of beat (alone) with forfeits due 2 to 12 s later: beat running again after {seconds(beat['back'])}; "
        f"each timeout after its deadline {beat['late']} s, missing {beat['missing']}",
    ]


def supervised_kills(server, env: dict, until) -> dict[str, tuple[float | None, float | None]]:
    """SIGKILL each program's whole process group (the first of each pair on the port; the stream
    server only where it runs, beside gunicorn); seconds until the port answers again, and until
    the restarted program itself listens again (None: not within 60 and 180 s; for the web server
    on the port supervisord holds, its socket is the supervisor's and only the first figure is
    measured: web_kill has more)."""
    ports = {"streams": int(env["STREAM_PORT"]), "smtp": int(env["SMTP_PORT"]), "web": int(env["PORT"])}
    probes = {
        "streams": lambda: _http_answers(ports["streams"]),
        "smtp": lambda: _smtp_answers(ports["smtp"]),
        "web": lambda: _http_answers(ports["web"]),
    }
    if env.get("SCRAPYARD_STREAM_PROCESS") != "true":
        del probes["streams"]
    back = {}
    for name, probe in probes.items():
        until(probe, 30)
        program = server.first_web() if name == "web" else name
        pid = int(server.ctl("pid", program).strip() or 0)
        if not pid:
            back[name] = (None, None)
            continue
        os.killpg(pid, signal.SIGKILL)
        killed = time.monotonic()
        time.sleep(0.3)  # the old process gone, not still answering
        answering = round(time.monotonic() - killed, 1) if until(probe, 60, 0.1) else None
        if program != name:  # web:web-0: it listens on no socket of its own
            back[name] = (answering, HELD)
            continue

        def restarted(name=name, old=pid) -> bool:
            new = int(server.ctl("pid", name).strip() or 0)
            return new not in (0, old) and _listening(ports[name], new)

        relistening = round(time.monotonic() - killed, 1) if until(restarted, 180, 0.2) else None
        back[name] = (answering, relistening)
    return back


def kill_lines(back: dict) -> list[str]:
    def seconds(value: float | None, limit: int) -> str:
        return f"not within {limit} s" if value is None else f"{value:.1f} s"

    def restart(relistening: float | None) -> str:
        if relistening == HELD:
            return " (its port held by supervisord)"
        return f" (the killed one listening again {seconds(relistening, 180)})"

    parts = ", ".join(f"{name} answering again {seconds(answering, 60)}{restart(relistening)}"
                      for name, (answering, relistening) in back.items())
    return [f"SIGKILL of the first of each pair under the players' load: {parts}"]


# --- the web server killed: the port's answers around the kill ------------------------------------


class Probe:
    """A new connection to the web port every `every` s (a thread each, so one waiting in the
    backlog holds up none of the others): each attempt's start, end and outcome (`ok`, `refused`,
    `reset`, `timeout`, or the HTTP status), on the monotonic clock. It asks for GET /api/rules/,
    which the WSGI threads answer without the database: /api/health/ is served by Django's ASGI
    handler, a thread and a database connection per request, and at ten a second with answers
    held up it took the shared PostgreSQL's every connection."""

    def __init__(self, port: int, every: float = 0.2, timeout: float = 60):
        import threading

        self.port, self.every, self.timeout = port, every, timeout
        self.attempts: list[tuple[float, float, str]] = []
        self.started = 0
        self.lock, self.stopped = threading.Lock(), threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _attempt(self) -> None:
        import http.client

        began = time.monotonic()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            connection.request("GET", "/api/rules/", headers={"Connection": "close"})
            status = connection.getresponse().status
            connection.close()
            outcome = "ok" if status == 200 else str(status)
        except ConnectionRefusedError:
            outcome = "refused"
        except (ConnectionResetError, http.client.RemoteDisconnected, BrokenPipeError):
            outcome = "reset"
        except (TimeoutError, socket.timeout):
            outcome = "timeout"
        except OSError as error:
            outcome = type(error).__name__
        with self.lock:
            self.attempts.append((began, time.monotonic(), outcome))

    def _run(self) -> None:
        import threading

        while not self.stopped.is_set():
            with self.lock:
                self.started += 1
            threading.Thread(target=self._attempt, daemon=True).start()
            time.sleep(self.every)

    def stop(self) -> list[tuple[float, float, str]]:
        """Stop starting attempts; wait for those under way (each ends within the timeout)."""
        self.stopped.set()
        self.thread.join()
        end = time.monotonic() + self.timeout + 5
        while time.monotonic() < end:
            with self.lock:
                if len(self.attempts) >= self.started:
                    break
            time.sleep(0.1)
        with self.lock:
            return list(self.attempts)


def kill_figures(attempts: list[tuple[float, float, str]], killed: float) -> dict:
    """From the attempts started after the kill: how long the port refused (from the kill to the
    start of the last refused or reset attempt), the first answer, the longest an answered one
    waited, and the count of each outcome."""
    after = [attempt for attempt in attempts if attempt[0] >= killed]
    failed = [began for began, _, outcome in after if outcome != "ok"]
    answered = [(end, end - began) for began, end, outcome in after if outcome == "ok"]
    outcomes: dict[str, int] = {}
    for _, _, outcome in after:
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return {
        "down": round(max(failed) - killed, 1) if failed else 0.0,
        "first_answer": round(min(end for end, _ in answered) - killed, 1) if answered else None,
        "longest_wait": round(max(wait for _, wait in answered), 1) if answered else None,
        "outcomes": outcomes,
    }


def _children(pid: int) -> list[int]:
    import subprocess

    listed = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True, check=False)
    return [int(child) for child in listed.stdout.split()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def web_kill(server, port: int, name: str, whole_group: bool, watch: float = 60.0, ahead: float = 12.0) -> dict:
    """SIGKILL program `name` of the web server (its process group: the main process and its
    workers; or its main process alone) with a probe on the port (Probe: a connection every 0.2 s)
    from `ahead` s before to `watch` s after (ahead: long enough that every worker has answered the
    probe's route once; a worker's first answer of a route took 5 s at a load of 20, which the
    first answer after a kill then measured instead of the port); the probe's figures
    (kill_figures), and the killed main process's workers still alive at the end (orphans: killed
    when counted)."""
    pid = int(server.ctl("pid", name).strip() or 0)
    workers = _children(pid)
    probe = Probe(port)
    time.sleep(ahead)
    killed = time.monotonic()
    if whole_group:
        os.killpg(pid, signal.SIGKILL)
    else:
        os.kill(pid, signal.SIGKILL)
    time.sleep(watch)
    attempts = probe.stop()
    figures = kill_figures(attempts, killed)
    orphans = [worker for worker in workers if _alive(worker)]
    for orphan in orphans:  # started by this run's supervisord; nothing else stops them
        os.kill(orphan, signal.SIGKILL)
    figures["orphans"] = len(orphans)
    figures["before_kill"] = kill_figures([attempt for attempt in attempts if attempt[0] < killed], 0.0)["outcomes"]
    return figures


def web_kill_lines(figures: dict[str, list[dict]]) -> list[str]:
    """A table: each shape's kills side by side (figures: shape -> [kill figures with `kind`])."""
    lines = ["| shape | kill | port refusing (s after the kill) | first answer (s) | longest answered wait (s) | "
             "attempts after the kill | orphaned workers |", "|---|---|---|---|---|---|---|"]
    for shape, kills in figures.items():
        for kill in kills:
            outcomes = ", ".join(f"{outcome} {count}" for outcome, count in sorted(kill["outcomes"].items()))
            first = "none" if kill["first_answer"] is None else f"{kill['first_answer']:.1f}"
            wait = "none" if kill["longest_wait"] is None else f"{kill['longest_wait']:.1f}"
            lines.append(f"| {shape} | {kill['kind']} | {kill['down']:.1f} | {first} | {wait} | {outcomes} | "
                         f"{kill['orphans']} |")
    return lines
