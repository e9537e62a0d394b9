"""Three phases of `bench.chaos` against its live server (issue 51):

- `analysis_flood`: a person plays a bot (Scavenge, mcts level 1) in pairs of twin games: the same
  seed and the person's same moves (`person_move`, picked by a hash of the position), so the bot
  faces the same positions with the same randomness in both. One twin is played with no analysis
  queued, the other right after another account asked for 20 analyses (the per-account quota
  raised to 20 for the run) and once the analysis workers are running them; the pairs alternate
  which twin comes first. The figure is the bot's reply time (from the person's move event to
  the bot's, as the log stamps them) over the same positions, beside the analyses running
  (sampled) and finished during the flooded twin, and the lateness of forfeit games' timeouts on
  step clocks falling due while the flood runs;
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

import hashlib
import json
import os
import random
import signal
import socket
import statistics
import time
import urllib.request

FLOOD = 20


# --- games and bot replies ------------------------------------------------------------------------


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


# --- the flood: twin games, one quiet and one beside 20 analyses ---------------------------------

FLOOD_GAME_MOVES = 12  # moves of each analysed game: ~13 positions at SCRAPYARD_ANALYSIS_MILLISECONDS
REPLIES = 12  # bot replies measured in each game of a pair
STEP_CLOCKS = (3, 5, 7, 9)  # seconds: forfeit games whose deadlines fall due while the flood runs
DRAIN_SECONDS = 300.0


def person_move(moves: list, seq: int):
    """The person's move among the legal `moves` at `seq`: picked by a hash of both, so that in
    the same position two games get the same move (and the bot, seeded from the game's seed and
    the seq, `bot_seed`, faces the same positions)."""
    digest = hashlib.sha256(json.dumps([seq, moves], sort_keys=True).encode()).digest()
    return moves[int.from_bytes(digest[:8], "big") % len(moves)]


def twin_game(person, seed: str) -> int:
    """A public Scavenge game of `person` (seat 0) against mcts level 1, with `seed` for its seed
    instead of a fresh one: every game made with the same seed starts in the same position."""
    from unittest import mock

    from games import services
    from games.services import lobby

    with mock.patch.object(lobby, "new_seed", return_value=seed):
        game = services.game_create(creator=person, rules_id="scavenge", players=2, options={},
                                    bot_seats=[{"seat": 1, "bot": "mcts", "level": 1}])
    return game.pk


def bot_reply(game_id: int, seq: int, timeout: float = 180) -> float | None:
    """Seconds from the event at `seq` to the bot's (seat 1) next, as the log stamps them; None if
    it does not come within `timeout`."""
    from games.models import Event

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        moved = Event.objects.filter(game_id=game_id, seq=seq).values_list("created_at", flat=True).first()
        reply = (Event.objects.filter(game_id=game_id, seq__gt=seq, seat=1).order_by("seq")
                 .values_list("created_at", flat=True).first())
        if moved is not None and reply is not None:
            return (reply - moved).total_seconds()
        time.sleep(0.1)
    return None


def person_to_move(api, token: str, game_id: int, timeout: float = 180) -> dict | None:
    """The person's legal moves (and seq) once seat 0 is to act (the bot may open the game); None
    if the game is over or it is still not the person's turn after `timeout` s."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        status, legal = api.patient("GET", f"/api/games/{game_id}/legal-moves/", token=token)
        if status == 200 and legal.get("moves"):
            return legal
        status, game = api.patient("GET", f"/api/games/{game_id}/", token=token)
        if status != 200 or game["status"] != "active":
            return None
        time.sleep(0.2)
    return None


def replies_to_person(api, token: str, game_id: int, count: int) -> list[float | None]:
    """The person (seat 0, through the API) plays `person_move` `count` times, each after the
    bot's reply; the seconds of each reply. Stops early if the game ends or the bot never replies."""
    replies: list[float | None] = []
    while len(replies) < count and (legal := person_to_move(api, token, game_id)) is not None:
        move = person_move(legal["moves"], legal["seq"])
        status, moved = api.patient("POST", f"/api/games/{game_id}/moves/",
                                    {"move": move, "expected_seq": legal["seq"]}, token)
        if status != 201:
            break
        replies.append(bot_reply(game_id, moved["seq"]))
        if replies[-1] is None:
            break
    return replies


def moves_of(game_id: int) -> list[tuple]:
    from games.models import Event

    return list(Event.objects.filter(game_id=game_id, kind="move").order_by("seq").values_list("seq", "seat", "payload"))


def first_difference(first: list[tuple], second: list[tuple]) -> int | None:
    """The seq of the first move the twins played differently (over the moves both played), or
    None: the bot faced the same positions in both."""
    for one, other in zip(first, second):
        if one != other:
            return one[0]
    return None


def outstanding_analyses() -> int:
    from analysis.models import OUTSTANDING, Analysis

    return Analysis.objects.filter(status__in=OUTSTANDING).count()


def analyses_drained(timeout: float = DRAIN_SECONDS) -> bool:
    """Waits until no analysis is queued or running (a quiet game must be quiet)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if outstanding_analyses() == 0:
            return True
        time.sleep(1.0)
    return False


class AnalysisWatch:
    """Samples, every `every` s in a thread of its own, the statuses of `game_ids`' analyses:
    (wall time, {status: count})."""

    def __init__(self, game_ids: list[int], every: float = 0.5):
        import threading

        self.game_ids, self.every, self.samples = game_ids, every, []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        from django.db import connection
        from django.db.models import Count
        from django.utils import timezone

        from analysis.models import Analysis

        try:
            while not self._stop.is_set():
                counts = (Analysis.objects.filter(game_id__in=self.game_ids).order_by()
                          .values_list("status").annotate(n=Count("id")))
                self.samples.append((timezone.now(), dict(counts)))
                self._stop.wait(self.every)
        finally:
            connection.close()

    def running(self) -> int:
        return self.samples[-1][1].get("running", 0) if self.samples else 0

    def stop(self) -> list[tuple]:
        self._stop.set()
        self._thread.join(10)
        return self.samples


def window_figures(samples: list[tuple], began, ended) -> dict:
    """What the analyses did between `began` and `ended`: how many were running at each sample
    (min, median, max, samples) and how many finished (done at the end less done at the start)."""
    inside = [counts for when, counts in samples if began <= when <= ended]
    before = [counts for when, counts in samples if when <= began] or [counts for _, counts in samples[:1]]
    running = [counts.get("running", 0) for counts in inside]
    done_at_start = before[-1].get("done", 0) if before else 0
    done_at_end = inside[-1].get("done", 0) if inside else done_at_start
    return {"samples": len(running), "running_min": min(running, default=0),
            "running_median": statistics.median(running) if running else 0, "running_max": max(running, default=0),
            "finished": done_at_end - done_at_start}


def running_at(samples: list[tuple], when) -> int | None:
    """Analyses running at the sample nearest `when` (None: no sample)."""
    if not samples:
        return None
    return min(samples, key=lambda sample: abs((sample[0] - when).total_seconds()))[1].get("running", 0)


def all_done_after(samples: list[tuple], asked, total: int) -> float | None:
    """Seconds from `asked` to the first sample with `total` done (None: never while sampled)."""
    for when, counts in samples:
        if counts.get("done", 0) + counts.get("failed", 0) >= total:
            return round((when - asked).total_seconds(), 1)
    return None


def step_clocks(names: list[str], seconds: tuple[int, ...] = STEP_CLOCKS) -> list[tuple[int, object]]:
    """Two-seat forfeit games on step clocks of `seconds` (as `redis_outage_with_step_clock`
    makes them), started now: (game, its deadline)."""
    from games import services
    from games.models import Deadline

    pairs = [_users(names[n:n + 2]) for n in (4, 6)]
    clocks = []
    for n, step in enumerate(seconds):
        first, second = pairs[n % len(pairs)]
        game = services.game_create(creator=first, rules_id="scavenge", players=2, options={},
                                    time_control={"type": "step", "seconds": step}, timeout_policy="forfeit")
        services.game_join(game_id=game.pk, user=second)
        clocks.append((game.pk, Deadline.objects.get(game_id=game.pk).due_at))
    return clocks


def timeouts_late(clocks: list[tuple[int, object]], timeout: float = 60) -> list[float | None]:
    """Each clock's timeout: seconds after its deadline (None: none came within the longest step
    and `timeout` s more)."""
    from games.models import Event

    ids = [game_id for game_id, _ in clocks]
    end = time.monotonic() + max(STEP_CLOCKS) + timeout
    while time.monotonic() < end and Event.objects.filter(game_id__in=ids, kind="timeout").values("game_id").distinct().count() < len(ids):
        time.sleep(0.5)
    late = []
    for game_id, due_at in clocks:
        fired = Event.objects.filter(game_id=game_id, kind="timeout").order_by("seq").values_list("created_at", flat=True).first()
        late.append(None if fired is None else round((fired - due_at).total_seconds(), 2))
    return late


def measured_game(api, token: str, person, seed: str, replies: int) -> dict:
    """One twin game played and timed (see `replies_to_person`), with the analyses outstanding
    when it began."""
    from django.utils import timezone

    outstanding = outstanding_analyses()
    game_id = twin_game(person, seed)
    began = timezone.now()
    times = replies_to_person(api, token, game_id, replies)
    return {"game": game_id, "replies": times, "outstanding_at_start": outstanding, "began": began,
            "ended": timezone.now()}


def flood_asked(api, flooder: str, names: list[str], rng: random.Random) -> tuple[list[int], list[int]]:
    """FLOOD finished public games, and the answers to `flooder`'s asking for their analyses."""
    creator, guest = _users(names[2:4])
    games = finished_games(creator, guest, FLOOD, FLOOD_GAME_MOVES, rng)
    return games, [api.patient("POST", f"/api/games/{game}/analysis", token=flooder)[0] for game in games]


def flooded_game(api, tokens: list[str], names: list[str], person, seed: str, rng: random.Random,
                 replies: int) -> dict:
    """A twin game played once the flood's analyses run, with step clocks falling due meanwhile;
    then waits until the flood is over (so that a quiet game after it is quiet)."""
    from django.utils import timezone

    analysed, codes = flood_asked(api, tokens[1], names, rng)
    asked = timezone.now()
    watch = AnalysisWatch(analysed)
    end = time.monotonic() + 30
    while watch.running() == 0 and time.monotonic() < end:  # the workers have taken them
        time.sleep(0.2)
    clocks = step_clocks(names)
    game = measured_game(api, tokens[0], person, seed, replies)
    late = timeouts_late(clocks)
    analyses_drained()
    samples = watch.stop()
    return {**game, "asked": codes, "window": window_figures(samples, game["began"], game["ended"]),
            "all_done_after": all_done_after(samples, asked, len(analysed)),
            "late": late, "running_when_due": [running_at(samples, due_at) for _, due_at in clocks]}


def analysis_flood(api, tokens: list[str], names: list[str], rng: random.Random, replies: int = REPLIES) -> dict:
    """Bot replies in twin games (same seed, the person's same moves, so the same positions), one
    with no analysis queued, the other with FLOOD queued by another account and running; two
    pairs, the quiet game first in one and last in the other. See the module."""
    (person,) = _users(names[:1])
    pairs = []
    for order in (("quiet", "flooded"), ("flooded", "quiet")):
        seed = hashlib.sha256(f"flood:{rng.random()}".encode()).hexdigest()
        pair = {"order": order}
        for kind in order:
            if kind == "quiet":
                analyses_drained()  # after a flooded twin: its analyses are over
                pair["quiet"] = measured_game(api, tokens[0], person, seed, replies)
            else:
                pair["flooded"] = flooded_game(api, tokens, names, person, seed, rng, replies)
        pair["differs_at"] = first_difference(moves_of(pair["quiet"]["game"]), moves_of(pair["flooded"]["game"]))
        pairs.append(pair)
    return {"pairs": pairs}


def _reply_summary(values: list[float | None]) -> str:
    values = [value for value in values if value is not None]
    if not values:
        return "no replies"
    return f"median {statistics.median(values):.2f} s, max {max(values):.2f} s"


def _both_measured(pair: dict) -> tuple[list, list]:
    """The replies of the twins over the positions both reached (the first n of each)."""
    quiet, flooded = pair["quiet"]["replies"], pair["flooded"]["replies"]
    n = min(len(quiet), len(flooded))
    return quiet[:n], flooded[:n]


def flood_lines(figures: dict) -> list[str]:
    pairs = figures["pairs"]
    measured = [_both_measured(pair) for pair in pairs]
    quiet = [value for q, _ in measured for value in q]
    flooded = [value for _, f in measured for value in f]
    same = all(pair["differs_at"] is None for pair in pairs)
    lines = [(
        f"a bot's reply (mcts level 1, Scavenge) over the same {len(quiet)} positions of {len(pairs)} pairs of twin "
        f"games (same seed, the person's same moves; {'the same moves throughout' if same else 'THE TWINS DIVERGED'}): "
        f"no analysis queued {_reply_summary(quiet)}; {FLOOD} analyses queued by another account and running "
        f"{_reply_summary(flooded)}"),
    ]
    for number, pair in enumerate(pairs, 1):
        q, f = _both_measured(pair)
        flood, window = pair["flooded"], pair["flooded"]["window"]
        codes = {code: flood["asked"].count(code) for code in sorted(set(flood["asked"]))}
        done = "never while sampled" if flood["all_done_after"] is None else f"{flood['all_done_after']} s after asked"
        diverged = "" if pair["differs_at"] is None else f", twins diverged at seq {pair['differs_at']}"
        lines.append(
            f"pair {number} ({pair['order'][0]} first{diverged}): quiet {_reply_summary(q)} "
            f"({pair['quiet']['outstanding_at_start']} analyses outstanding as it began); flooded {_reply_summary(f)}; "
            f"the flood (answers {codes}) while the bot played: running min {window['running_min']}, median "
            f"{window['running_median']}, max {window['running_max']} over {window['samples']} samples, "
            f"{window['finished']} finished during the game; all {FLOOD} done {done}")
    late = [value for pair in pairs for value in pair["flooded"]["late"]]
    fired = [value for value in late if value is not None]
    running = [value for pair in pairs for value in pair["flooded"]["running_when_due"]]
    lines.append(
        f"deadlines under the flood: {len(late)} forfeit games on step clocks ({'/'.join(map(str, STEP_CLOCKS))} s, "
        f"started with each flooded twin; analyses running at each deadline: {running}): each timeout after its "
        f"deadline median {statistics.median(fired) if fired else 0:.2f} s, at most {max(fired, default=0):.2f} s, "
        f"missing {len(late) - len(fired)}; every figure (s) {late}")
    return lines


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
