"""Reply to a Scrapyard mail as a mail program would, for playing by email on `make run`'s
embedded default (mails written as .eml files under var/mail/, replies taken by the SMTP gateway).

    python examples/mail_reply.py --for alice@example.org 3     # the newest mail to alice: play move 3
    python examples/mail_reply.py var/mail/your_turn.7.12.….eml "step N"
    python examples/mail_reply.py --for alice@example.org board

The first line of the reply is your text; a move gets the mail's `#seq` guard unless you wrote
one. The mail you answer is quoted below it, as mail programs do. Standard library only.
"""

from __future__ import annotations

import argparse
import email
import email.policy
import email.utils
import os
import re
import smtplib
import sys
from pathlib import Path

COMMANDS = {"board", "help", "resign", "vacation on", "vacation off"}


def newest_for(folder: Path, address: str) -> Path:
    mails = [path for path in folder.glob("*.eml") if address.lower() in _read(path).get("To", "").lower()]
    if not mails:
        sys.exit(f"no mail to {address} in {folder}")
    return max(mails, key=lambda path: path.stat().st_mtime)


def _read(path: Path):
    return email.message_from_bytes(path.read_bytes(), policy=email.policy.default)


def reply_to(original, text: str):
    body = original.get_body(preferencelist=("plain",)).get_content()
    guard = re.search(r"then #(\d+)", " ".join(body.split()))
    if guard and "#" not in text and text.strip().lower() not in COMMANDS:
        text = f"{text} #{guard[1]}"
    reply = email.message.EmailMessage()
    reply["From"] = original["To"]
    reply["To"] = original["Reply-To"]
    subject = str(original["Subject"])
    reply["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    reply["Message-ID"] = email.utils.make_msgid(domain="reply.localhost")
    reply["In-Reply-To"] = original["Message-ID"]
    quoted = "\n".join(f"> {line}" for line in body.splitlines())
    reply.set_content(f"{text}\n\nOn {original['Date']}, Scrapyard wrote:\n{quoted}\n")
    return reply


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mail", nargs="?", help="the .eml file to answer")
    parser.add_argument("text", help="the reply's first line: a move's number or notation, or a command")
    parser.add_argument("--for", dest="address", help="answer the newest mail to this address instead")
    parser.add_argument("--folder", default=os.environ.get("SCRAPYARD_VAR_DIR", "var") + "/mail")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=int(os.environ.get("SMTP_PORT", "2525")))
    args = parser.parse_args()
    if not args.mail and not args.address:
        parser.error("name a mail file, or --for an address")
    path = Path(args.mail) if args.mail else newest_for(Path(args.folder), args.address)
    original = _read(path)
    if not original["Reply-To"]:
        sys.exit(f"{path} has no Reply-To: it is not a game mail")
    reply = reply_to(original, args.text)
    with smtplib.SMTP(args.host, args.port, timeout=30) as client:
        client.send_message(reply)
    print(f"sent {reply['Subject']!r} to {reply['To']} answering {path.name}: {args.text}")


if __name__ == "__main__":
    main()
