"""Five Redis outages with deadlines and bot turns pending, under the real supervisor; and its stop.

`deploy/supervisord.conf` (what `make run` starts) runs the web server (API, pages, streams), two workers per queue and beat
against a Redis server of this test's own, which the test kills outright five times (no clean
shutdown; it keeps nothing on disk, so every message in it is lost too). ETA timeouts are held by
the deadline worker and bot wake-ups are in flight or unsent when Redis goes. Afterwards every
deadline has been enforced exactly once, never early, every bot has answered, and every process
the supervisor runs is up. A stop (what `make run`'s Ctrl-C does) reaches the twelve workers at
once, and each ends by its own warm shutdown: nothing killed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from django.contrib.auth import get_user_model
from django.db import connection

from games import services, store
from games.models import Deadline, Event, Game
from tests.workers.conftest import ROOT, _point_celery_at, _test_database_url, wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.timeout(240),
]

BIN = Path(sys.executable).parent
OUTAGES = 5
# deploy/supervisord.conf: two workers a queue
WORKERS = tuple(f"workers:{queue}-{number}" for queue in ("deadlines", "bots", "default", "mail", "webhooks", "feed", "analysis")
                for number in (0, 1))
# The web servers in a pair on the port supervisord holds, and web-2 keeping it; the SMTP gateways in a pair.
PROGRAMS = ("web:web-0", "web:web-1", "web:web-2", "smtp", "smtp-b", *WORKERS, "beat")
# The web server serves the streams itself (granian, `make run`'s): the stream processes are not started.
EXPECTED = {**dict.fromkeys(PROGRAMS, "RUNNING"), "streams": "STOPPED", "streams-b": "STOPPED"}
DOWN_SECONDS = 3.0
UP_SECONDS = 4.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """A redis-server of the test's own on a free port, killed and restarted at will."""

    def __init__(self, workdir: Path):
        self.port, self.workdir, self.process = _free_port(), workdir, None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        wait_for(self.answers, 10, 0.05)

    def answers(self) -> bool:
        """redis answers PING"""
        try:
            return redis.Redis(port=self.port, socket_timeout=0.5).ping()
        except redis.RedisError:
            return False

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)


class Supervisor:
    """supervisord with the deployment's own configuration, in a private var directory."""

    def __init__(self, var: Path, env: dict[str, str]):
        self.var, self.env = var, env
        self.config = str(ROOT / "deploy" / "supervisord.conf")
        self.process = subprocess.Popen(
            [str(BIN / "supervisord"), "--nodaemon", "--configuration", self.config],
            cwd=ROOT, env=env, stdout=open(var / "supervisor.out", "wb"), stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def status(self) -> dict[str, str]:
        answer = subprocess.run(
            [str(BIN / "supervisorctl"), "--configuration", self.config, "status"],
            env=self.env, capture_output=True, text=True, timeout=60,
        )
        return {line.split()[0]: line.split()[1] for line in answer.stdout.splitlines() if line.split()}

    def pids(self, names: tuple[str, ...]) -> dict[str, int]:
        answer = subprocess.run(
            [str(BIN / "supervisorctl"), "--configuration", self.config, "pid", *names],
            env=self.env, capture_output=True, text=True, timeout=60,
        )
        return dict(zip(names, map(int, answer.stdout.split())))

    def output(self) -> str:
        return (self.var / "supervisor.out").read_text(errors="replace")

    def stop(self, grace: float = 40) -> None:
        """SIGTERM (supervisord stops its programs gracefully); after `grace` s, SIGKILL to
        supervisord and to each program's process group (supervisord gives every program one of
        its own, so killing supervisord's group alone would leave them running)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(grace)
            except subprocess.TimeoutExpired:
                groups = set()
                for pid in _children(self.process.pid):
                    with contextlib.suppress(ProcessLookupError):
                        groups.add(os.getpgid(pid))
                os.killpg(self.process.pid, signal.SIGKILL)
                for group in groups:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(group, signal.SIGKILL)
                self.process.wait(10)


def _children(parent: int) -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit() and _stat(int(name))[1:2] == [str(parent)]]


def _stat(pid: int) -> list[str]:
    """The process's /proc stat fields after its name (state, parent, ...); [] once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return stat[stat.rindex(")") + 2:].split()


@pytest.fixture
def private_redis(tmp_path):
    from project.celery import app

    server = RedisServer(tmp_path)
    server.start()
    before = app.conf.broker_url
    _point_celery_at(app, server.url)  # this process's after-commit bot wake-ups go there too
    yield server
    _point_celery_at(app, before)
    if server.process.poll() is None:
        server.kill()


@pytest.fixture
def supervised(private_redis, tmp_path):
    var = tmp_path / "var"
    var.mkdir()
    env = {
        **os.environ,
        "DATABASE_URL": _test_database_url(),
        "REDIS_URL": private_redis.url,
        "SCRAPYARD_VAR_DIR": str(var),
        "SCRAPYARD_BIN": str(BIN),
        "HOST": "127.0.0.1",
        "PORT": str(_free_port()),
        "STREAM_PORT": str(_free_port()),
        "SMTP_PORT": str(_free_port()),
        "SCRAPYARD_WEB_PROCESSES": "1",
        "SCRAPYARD_WEB_THREADS": "4",
        "SCRAPYARD_STREAM_PROCESS": "false",
        "SCRAPYARD_DEADLINE_PROCESSES": "2",
        "SCRAPYARD_BOT_PROCESSES": "2",
        "SCRAPYARD_DEFAULT_PROCESSES": "1",
        "SCRAPYARD_MAIL_PROCESSES": "1",
        "SCRAPYARD_WEBHOOK_PROCESSES": "1",
        "SCRAPYARD_FEED_PROCESSES": "1",
        "SCRAPYARD_ANALYSIS_PROCESSES": "1",
        "SCRAPYARD_CLOCKS_RESEND": "3",
        "SCRAPYARD_BOT_STALLED_SECONDS": "3",
        "PYTHONUNBUFFERED": "1",
    }
    supervisor = Supervisor(var, env)
    wait_for(lambda: supervisor.status() == EXPECTED, 30, 0.5)
    yield supervisor
    # The test is over: its processes' graceful stop (Celery's warm shutdown of tasks retrying
    # against the Redis the test took away) held the teardown 15 s; 3 s, then they are killed.
    supervisor.stop(grace=3)
    connection.close()


_names = iter(range(10**6))


def _users(count: int) -> list:
    User = get_user_model()
    return [User.objects.create_user(username=f"o{next(_names)}", password="x") for _ in range(count)]


def _forfeit_game(seconds: int) -> tuple[Game, object]:
    """A two-person game that ends with its first timeout: exactly one timeout, ever."""
    users = _users(2)
    game = services.game_create(
        creator=users[0], rules_id="scavenge", players=2, options={},
        time_control={"type": "step", "seconds": seconds}, timeout_policy="forfeit",
    )
    services.game_join(game_id=game.pk, user=users[1])
    return Game.objects.get(pk=game.pk), Deadline.objects.get(game=game).due_at


def _bot_game() -> tuple[Game, object]:
    """A person (seat 0) against a quick bot (seat 1), no clock."""
    (person,) = _users(1)
    game = services.game_create(
        creator=person, rules_id="scavenge", players=2, options={},
        bot_seats=[{"seat": 1, "bot": "mcts", "level": 1}],
    )
    return Game.objects.get(pk=game.pk), person


def _person_moves(game: Game, person) -> bool:
    """The person plays their first legal move if it is their turn; True if they did."""
    game.refresh_from_db()
    if game.status != "active" or 0 not in game.to_act:
        return False
    move = store.rules_of(game).legal_moves(store.state_at(game), 0)[0]
    services.move_submit(game_id=game.pk, user=person, move=move, expected_seq=game.seq)
    return True


def _waiting_for_a_bot(game: Game) -> bool:
    game.refresh_from_db()
    return game.status == "active" and 1 in game.to_act


def test_five_redis_outages_lose_no_deadline_and_no_bot_turn(private_redis, supervised):
    # Deadlines falling before, during and after the outages (the first outage starts ~6 s in).
    forfeits = [_forfeit_game(seconds) for seconds in range(4, 4 + 4 * 9, 4)]
    bot_games = [_bot_game() for _ in range(OUTAGES)]
    # the first turns wait for the bots workers' start (twelve workers boot at once on a shared machine)
    wait_for(lambda: not any(_waiting_for_a_bot(game) for game, _ in bot_games), 180, 0.2)
    moves_while_down = 0
    for outage in range(OUTAGES):
        game, person = bot_games[outage]
        _person_moves(game, person)  # its wake-up is in flight, or queued, when Redis goes
        time.sleep(0.05)
        private_redis.kill()
        time.sleep(DOWN_SECONDS / 2)
        other, other_person = bot_games[(outage + 1) % OUTAGES]
        moves_while_down += _person_moves(other, other_person)  # its wake-up cannot be sent
        time.sleep(DOWN_SECONDS / 2)
        private_redis.start()
        time.sleep(UP_SECONDS)

    def every_deadline_enforced() -> bool:
        """every forfeit game has finished"""
        return all(Game.objects.get(pk=game.pk).status == "finished" for game, _ in forfeits)

    def every_bot_answered() -> bool:
        """no game waits for its bot"""
        return not any(_waiting_for_a_bot(game) for game, _ in bot_games)

    wait_for(every_deadline_enforced, 60, 0.5)
    wait_for(every_bot_answered, 60, 0.5)
    assert moves_while_down >= 3  # the outages did catch wake-ups unsent
    for game, due_at in forfeits:
        timeouts = list(Event.objects.filter(game=game, kind="timeout"))
        assert len(timeouts) == 1, (game.pk, [event.seq for event in timeouts])
        assert timeouts[0].created_at >= due_at, "a deadline was enforced early"
    for game, _ in bot_games:
        events = list(Event.objects.filter(game=game).order_by("seq"))
        game.refresh_from_db()
        assert [event.seq for event in events] == list(range(1, game.seq + 1))
    status = supervised.status()
    assert status == EXPECTED, (status, supervised.output()[-3000:])


def test_a_stop_reaches_every_worker_at_once_and_each_ends_by_its_own_warm_shutdown(supervised):
    from project.celery import app  # pointed at the test's own Redis, as the workers are

    def every_worker_answers() -> bool:
        """every worker answers a ping: up, with its signal handlers in place"""
        return len(app.control.ping(timeout=0.5)) == len(WORKERS)

    wait_for(every_worker_answers, 180, 0.5)  # twelve Django starts on a shared machine
    pids = supervised.pids(WORKERS)
    assert len(pids) == len(WORKERS) and all(pids.values()), pids
    supervised.process.send_signal(signal.SIGTERM)  # what supervisord does on Ctrl-C too
    first_gone = wait_for(lambda: next((pid for pid in pids.values() if not _alive(pid)), None), 60, 0.05)
    told = supervised.output().count("Warm shutdown")
    supervised.process.wait(60)
    log = (supervised.var / "supervisord.log").read_text()
    # Stopped one after another, the first would be gone before the others had heard of the stop.
    assert told == len(WORKERS), (first_gone, supervised.output()[-3000:])
    assert "SIGKILL" not in log, log[-3000:]  # none ran out of its stopwaitsecs
    assert "exited with 'signal 15" not in supervised.output()  # no pool child killed under its worker


def _alive(pid: int) -> bool:
    fields = _stat(pid)
    return bool(fields) and fields[0] != "Z"  # a zombie has stopped, only not yet reaped
