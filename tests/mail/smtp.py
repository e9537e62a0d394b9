"""Play by email over real SMTP on loopback, shared by tests/mail and tests/workers: a sink
(aiosmtpd) stands for the players' mail servers and takes every outgoing mail; the players'
replies go to the gateway (mail.gateway) by smtplib, written as a mail program writes them."""

from __future__ import annotations

import email
import email.policy
import email.utils
import re
import smtplib
import socket
import threading
import weakref
from dataclasses import dataclass, field


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


# Each message's text, read once: a whole game by mail looks for the mail asking for the next move
# among all the mails so far, and parsing each again (headers and body, with email's modern
# policy) made the search cost more than the game.
_texts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def text_of(message) -> str:
    text = _texts.get(message)
    if text is None:
        text = _texts[message] = message.get_body(preferencelist=("plain",)).get_content()
    return text


PLAYERS_SERVER = "127.0.0.1"  # the players' mail server: SPF passes for players.example from it
ELSEWHERE = "127.0.0.2"  # a forger's server (Linux answers all of 127/8 on loopback)


def send_reply(port: int, sender: str, to: str, body: str, *, answering=None, subject: str | None = None,
               headers: dict[str, str] | None = None, source: str = PLAYERS_SERVER):
    """A reply as a mail program writes one: the new text on top, the mail it answers quoted,
    its References the answered mail's and then that mail's Message-ID (and any `headers`, such
    as the Content-Language a Dutch mail program sets), sent from `source`. Returns the reply."""
    reply = email.message.EmailMessage()
    reply["From"] = sender
    reply["To"] = to
    reply["Subject"] = subject or (f"Re: {thread_key(answering)[1]}" if answering is not None else "Re: your move")
    reply["Message-ID"] = email.utils.make_msgid(domain="players.example")
    if answering is not None:
        reply["In-Reply-To"] = answering["Message-ID"]
        reply["References"] = " ".join([*str(answering.get("References", "")).split(), str(answering["Message-ID"])])
        quoted = "\n".join(f"> {line}" for line in text_of(answering).splitlines())
        body = f"{body}\n\nOn Mon, 23 Nov 2026, Scrapyard wrote:\n{quoted}\n"
    reply.set_content(body)
    for name, value in (headers or {}).items():  # after the content, which clears every Content-* header
        reply[name] = value
    with smtplib.SMTP("127.0.0.1", port, timeout=30, source_address=(source, 0)) as client:
        client.send_message(reply, from_addr=sender, to_addrs=[to])
    return reply


def headline(message) -> str:
    """What is new in a mail: its body's first line (the subject stays the game's own)."""
    return next((line for line in text_of(message).splitlines() if line.strip()), "")


SUBJECT_PREFIX = re.compile(r"^((re|fwd?|aw)\s*:\s*)+", re.IGNORECASE)


def thread_key(message) -> tuple[str, str]:
    """How a mail program files a mail: the thread's root (the first of References, else the
    mail's own Message-ID) and the subject without its Re: prefixes."""
    references = str(message.get("References", "")).split()
    return (references[0] if references else str(message["Message-ID"]),
            SUBJECT_PREFIX.sub("", str(message["Subject"])).strip())


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
