"""What a reply says, read as a person wrote it: the lines above the quote (and above a
signature) are the actions, each line or each `;`-separated part one action, in order; a line
starting with `say` is a chat line, and so is every line below a `chat:` marker line.

    1 #10; 1; 1          three moves of one turn, played in order
    forest grow 2,5      one move by its notation
    say good luck!       a line for the game's chat
    chat:                everything below goes to the chat
    Nice opening. I did not see the fire coming.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

QUOTE_INTRO = re.compile(r"^(on .+ wrote:|-----original message-----|le .+ a écrit\s?:)$", re.IGNORECASE)
SAY = re.compile(r"^say(?:\s+|:\s*|$)", re.IGNORECASE)
CHAT_MARKER = re.compile(r"^chat\s*:?\s*$", re.IGNORECASE)
# What phones and mail programs add under a reply without the "-- " signature line.
SIGNED = re.compile(r"^(sent from my |get outlook for |envoy[ée] de mon |sent with )", re.IGNORECASE)
CONDITIONAL = re.compile(r"^\s*if\s", re.IGNORECASE)


@dataclass
class Reply:
    lines: list[str] = field(default_factory=list)  # the action lines, as written
    chat: list[str] = field(default_factory=list)

    @property
    def first(self) -> str:
        return self.lines[0] if self.lines else ""

    def actions(self) -> list[str]:
        """Every action in order: each line split at `;` (a conditional line keeps its `;`,
        which separates its own lines)."""
        found = []
        for line in self.lines:
            if CONDITIONAL.match(line):
                found.append(line)
            else:
                found.extend(part.strip() for part in line.split(";") if part.strip())
        return found


def read(text: str) -> Reply:
    reply, chatting, started = Reply(), False, False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith(">"):
            if started:
                break  # the quote of the mail answered: what follows is the old mail's
            continue
        if QUOTE_INTRO.match(line) or line in ("--", "-- ") or SIGNED.match(line):
            break
        if not line:
            continue
        started = True
        if chatting:
            reply.chat.append(line)
        elif CHAT_MARKER.match(line):
            chatting = True
        elif SAY.match(line):
            said = SAY.sub("", line, count=1).strip()
            if said:
                reply.chat.append(said)
        else:
            reply.lines.append(line)
    return reply
