"""A known player's reply time by mail during a flood: `python -m bench.mail_flood`.

The real SMTP gateway (aiosmtpd) and a sink for the outgoing mail run in this process on
loopback; one worker thread takes the mail tasks in the order they are sent, as one Celery
worker on the mail queue does, and a beat thread runs the inbound sweep every two seconds. A
player replies `board` to their own reply address (a reply carrying its token) and the time
until the answer reaches the sink is measured:

- with no flood;
- while 500 mails from 500 made-up senders come to the server's address over ten connections
  at once (the flood is read a few a beat, behind the tokened replies:
  SCRAPYARD_MAIL_UNTOKENED_BURST and _PER_BEAT);
- the same flood with every mail read at once, as before (the burst set beyond the flood);
- 500 mails forging the player's own From to the server's address, while the player sends the
  command `games` to its own command address (the Reply-To of every answer to a command), or
  with `--commands-to server` to the server's address (the only way before command addresses;
  the player's mail passes SPF, the forgeries come from elsewhere and do not): the time until the
  answer to that command reaches the sink.

DNS answers come from fixed records (`mail.authentication.FixedRecords`): SPF names 127.0.0.1 as
the players' server; every flood comes from 127.0.0.2.

Figures go to stdout and bench/results/mail_flood.md. Needs PostgreSQL (`BENCH_DATABASE_URL`,
default postgres://postgres@127.0.0.1:5432/scrapyard_bench_mail, dropped and created afresh).
"""

from __future__ import annotations

import argparse
import datetime as dt
import email.message
import email.utils
import os
import platform
import queue
import smtplib
import statistics
import threading
import time
from pathlib import Path

from bench.deadlines import fresh_database

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "mail_flood.md"
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/scrapyard_bench_mail"
WAIT_CAP = 300.0  # seconds a reply's answer is waited for (--cap); a figure at the cap means none came


class Sink:
    """The players' mail servers: remembers when each mail came, by recipient."""

    def __init__(self) -> None:
        self.arrived: list[tuple[float, list[str], bytes]] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.arrived.append((time.monotonic(), list(envelope.rcpt_tos), envelope.original_content or envelope.content or b""))
        return "250 OK"

    def count_to(self, address: str) -> int:
        with self.lock:
            return sum(1 for _, to, _ in self.arrived if address in to)

    def has(self, address: str, mark: str) -> bool:
        """Whether a mail to `address` carrying `mark` (in its subject) has come."""
        with self.lock:
            return any(address in to and mark.encode() in content for _, to, content in self.arrived)


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def one_worker():
    """dispatch.send in a FIFO taken by one thread, as one worker takes its queue."""
    from django.db import close_old_connections

    from games import dispatch
    from project.celery import app

    app.loader.import_default_modules()
    tasks: queue.Queue = queue.Queue()

    def work() -> None:
        while True:
            name, args = tasks.get()
            close_old_connections()
            try:
                app.tasks[name].apply(args)
            except Exception:  # noqa: BLE001 - a task's failure is the task's; the worker goes on
                pass

    threading.Thread(target=work, daemon=True).start()
    dispatch.send = lambda name, args, **options: tasks.put((name, args))
    return tasks


def beat(stop: threading.Event) -> None:
    from django.db import close_old_connections

    from mail import services

    while not stop.wait(2.0):
        close_old_connections()
        services.inbound_unread_handle()


def mail(sender: str, to: str, line: str) -> email.message.EmailMessage:
    message = email.message.EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, line
    message["Message-ID"] = email.utils.make_msgid(domain="bench.example")
    message.set_content(line)
    return message


def flood(port: int, to: str, count: int, tag: str, connections: int = 10, forged: str = "") -> None:
    """`count` mails from as many made-up senders (or all claiming `forged`), over several
    connections at once (a flood comes from many servers)."""
    share = [threading.Thread(target=flood_one, args=(port, to, range(part, count, connections), tag, forged))
             for part in range(connections)]
    for thread in share:
        thread.start()
    for thread in share:
        thread.join()


FLOOD_SOURCE = "127.0.0.2"  # the flood's servers; the players' is 127.0.0.1 (SPF names it)


def flood_one(port: int, to: str, numbers: range, tag: str, forged: str = "") -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=120, source_address=(FLOOD_SOURCE, 0)) as client:
        for n in numbers:
            sender = forged or f"made-up{n}.{tag}@nowhere{n % 41}.example"
            try:
                client.send_message(mail(sender, to, "help"), from_addr=sender, to_addrs=[to])
            except (smtplib.SMTPRecipientsRefused, smtplib.SMTPDataError):
                client.rset()


def reply_times(port: int, sink: Sink, player: str, address: str, replies: int, gap: float) -> list[float]:
    times = []
    for _ in range(replies):
        before = sink.count_to(player)
        started = time.monotonic()
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
            client.send_message(mail(player, address, "board"), from_addr=player, to_addrs=[address])
        while sink.count_to(player) == before:
            if time.monotonic() - started > WAIT_CAP:
                break
            time.sleep(0.02)
        times.append(time.monotonic() - started)
        time.sleep(gap)
    return times


def command_times(port: int, sink: Sink, player: str, address: str, replies: int, gap: float) -> list[float]:
    """The player's command `games` to `address`, each with a mark of its own in the subject; the
    time until the answer carrying that mark reaches the sink."""
    times = []
    for n in range(replies):
        mark = f"bench-mark-{n}-{time.monotonic_ns()}"
        started = time.monotonic()
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as client:
            message = mail(player, address, "games")
            del message["Subject"]
            message["Subject"] = mark
            client.send_message(message, from_addr=player, to_addrs=[address])
        while not sink.has(player, mark):
            if time.monotonic() - started > WAIT_CAP:
                break
            time.sleep(0.02)
        times.append(time.monotonic() - started)
        time.sleep(gap)
    return times


def run(replies: int, flood_size: int, commands_to: str = "own") -> list[tuple[str, list[float]]]:
    from aiosmtpd.controller import Controller
    from django.conf import settings

    from accounts import services as account_services
    from games import services as game_services
    from mail import authentication, services
    from mail.gateway import controller
    from mail.models import Inbound

    authentication.use_resolver(authentication.FixedRecords({("bench.example", "TXT"): ["v=spf1 ip4:127.0.0.1 -all"]}))
    sink = Sink()
    sink_port = free_port()
    Controller(sink, hostname="127.0.0.1", port=sink_port).start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", sink_port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.SCRAPYARD_MAIL_VERIFY = False
    settings.SCRAPYARD_MAIL_SENDER_LIMIT = 1_000_000  # this benchmark measures the order, not the refusals
    settings.SCRAPYARD_MAIL_PEER_LIMIT = 1_000_000  # nor the limit per connecting address: all come from loopback here
    gateway_port = free_port()
    controller("127.0.0.1", gateway_port).start()
    one_worker()
    stop = threading.Event()
    threading.Thread(target=beat, args=(stop,), daemon=True).start()

    ann, _ = account_services.account_create(username="bench-ann", password="correct horse battery", email="ann@bench.example")
    bob, _ = account_services.account_create(username="bench-bob", password="correct horse battery", email="bob@bench.example")
    game = game_services.game_create(creator=ann, rules_id="terrafex", players=2, options={})
    game_services.game_join(game_id=game.pk, user=bob)
    address = services.address_of(user=ann, game_id=game.pk)
    time.sleep(2)  # the start mails go out first
    found = []
    burst = settings.SCRAPYARD_MAIL_UNTOKENED_BURST
    for label, burst_now, size in (("no flood", burst, 0), (f"{flood_size} made-up senders, read a few a beat", burst, flood_size),
                                   (f"{flood_size} made-up senders, all read at once (before)", 10**9, flood_size)):
        settings.SCRAPYARD_MAIL_UNTOKENED_BURST = burst_now
        Inbound.objects.exclude(recipient__startswith="play+").delete()  # each case starts with no flood behind it
        flooder = threading.Thread(target=flood, args=(gateway_port, services.server_address(), size, label[:3]))
        flooder.start()
        time.sleep(3.0 if size else 0)  # the flood is coming in when the player replies
        found.append((label, reply_times(gateway_port, sink, "ann@bench.example", address, replies, 0.5)))
        print(f"{label}: {', '.join(f'{t:.2f}' for t in found[-1][1])} s", flush=True)
        flooder.join()
        deadline = time.monotonic() + 600  # let the case's backlog drain before the next one
        while Inbound.objects.filter(outcome="received").exists() and time.monotonic() < deadline:
            time.sleep(1)
    settings.SCRAPYARD_MAIL_UNTOKENED_BURST = burst
    Inbound.objects.exclude(recipient__startswith="play+").delete()
    to = services.command_address(ann.pk) if commands_to == "own" else services.server_address()
    label = f"{flood_size} mails forging the player's From; its commands to {'its own command' if commands_to == 'own' else 'the server'}'s address"
    flooder = threading.Thread(target=flood, args=(gateway_port, services.server_address(), flood_size, "fgd"),
                               kwargs={"forged": "ann@bench.example"})
    flooder.start()
    time.sleep(3.0)
    found.append((label, command_times(gateway_port, sink, "ann@bench.example", to, replies, 0.5)))
    print(f"{label}: {', '.join(f'{t:.2f}' for t in found[-1][1])} s", flush=True)
    flooder.join()
    stop.set()
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replies", type=int, default=8)
    parser.add_argument("--flood", type=int, default=500)
    parser.add_argument("--commands-to", choices=("own", "server"), default="own",
                        help="where the player's commands go during the forged flood (server: as before command addresses)")
    parser.add_argument("--cap", type=float, default=300.0, help="seconds to wait for each answer")
    args = parser.parse_args(argv)
    global WAIT_CAP
    WAIT_CAP = args.cap
    db_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    fresh_database(db_url)
    os.environ["DATABASE_URL"] = db_url
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
    import django

    django.setup()
    import logging

    logging.disable(logging.WARNING)  # the SMTP servers' and tasks' chatter is not the figures
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    found = run(args.replies, args.flood, args.commands_to)
    load = os.getloadavg()
    lines = [
        f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; load average {load[0]:.1f} at the end.",
        "",
        "| case | replies | median s | max s |",
        "|---|---|---|---|",
    ]
    for label, times in found:
        lines.append(f"| {label} | {len(times)} | {statistics.median(times):.2f} | {max(times):.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
