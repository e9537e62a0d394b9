"""Play by email over real SMTP on loopback: a sink (aiosmtpd) stands for the players' mail
servers and takes every outgoing mail; the gateway (mail.gateway) takes the players' replies,
which the tests send with smtplib. Tasks run inline here (eager), so a reply's whole effect
(the move, the answer, the other seat's mail) is in the sink when `sendmail` returns; real
workers: tests/workers/test_mail_workers.py."""

from __future__ import annotations

import email
import email.policy
import email.utils
import re
import smtplib
import socket
import threading
from dataclasses import dataclass, field

import pytest
from aiosmtpd.controller import Controller
from asgiref.sync import SyncToAsync
from django.db import connections

from mail.gateway import controller as gateway_controller


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Sink:
    """What the outgoing SMTP server received: (envelope sender, recipients, parsed message)."""

    port: int
    received: list = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
        with self.lock:
            self.received.append((envelope.mail_from, list(envelope.rcpt_tos), message))
        return "250 OK"

    def to(self, address: str) -> list:
        with self.lock:
            return [message for _, recipients, message in self.received if address in recipients]

    def envelopes(self) -> list:
        with self.lock:
            return list(self.received)


@pytest.fixture(autouse=True)
def _sender_limit_out_of_the_way(settings):
    """Whole games come from two addresses; the test of the limit sets its own."""
    settings.SCRAPYARD_MAIL_SENDER_LIMIT = 1_000_000


@pytest.fixture
def sink(settings):
    port = free_port()
    box = Sink(port)
    server = Controller(box, hostname="127.0.0.1", port=port)
    server.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    yield box
    server.stop()


@pytest.fixture
def gateway():
    port = free_port()
    server = gateway_controller("127.0.0.1", port)
    server.start()
    yield port
    server.stop()
    # The gateway's database calls ran on asgiref's one shared thread: close its connection, so
    # the test database can be dropped.
    SyncToAsync.single_thread_executor.submit(connections.close_all).result()


@pytest.fixture
def eager_tasks():
    from project.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def text_of(message) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def send_reply(port: int, sender: str, to: str, body: str, *, answering=None, subject: str = "Re: your move") -> None:
    """A reply as a mail program writes one: the new text on top, the mail it answers quoted."""
    reply = email.message.EmailMessage()
    reply["From"] = sender
    reply["To"] = to
    reply["Subject"] = subject
    reply["Message-ID"] = email.utils.make_msgid(domain="players.example")
    if answering is not None:
        reply["In-Reply-To"] = answering["Message-ID"]
        quoted = "\n".join(f"> {line}" for line in text_of(answering).splitlines())
        body = f"{body}\n\nOn Mon, 23 Nov 2026, Scrapyard wrote:\n{quoted}\n"
    reply.set_content(body)
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.send_message(reply, from_addr=sender, to_addrs=[to])


LISTED = re.compile(r"^\s+(\d+)\. (.+)$", re.MULTILINE)
GUARD = re.compile(r"then #(\d+)")


def listed_moves(message) -> list[str]:
    text = text_of(message)
    if "legal moves" not in text:
        return []
    section = text.split("legal moves", 1)[1].split("\n\n", 1)[0]
    return [notation for _, notation in LISTED.findall(section)]


def guard_of(message) -> int:
    return int(GUARD.search(" ".join(text_of(message).split()))[1])
