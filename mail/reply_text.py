"""What a reply says, read as a person wrote it: the lines above the quote (and above a
signature) are the actions, each line or each `;`-separated part one action, in order; a line
starting with `say` is a chat line, and so is every line below a `chat:` marker line.

    1 #10; 1; 1          three moves of one turn, played in order
    forest grow 2,5      one move by its notation
    say good luck!       a line for the game's chat
    chat:                everything below goes to the chat
    Nice opening. I did not see the fire coming.

The actions are the first block of lines: from the first action line to a blank line. Below
it people write to a person, not to the server ("Succes!", "Bob", "Thanks for the game"), and
no list of words tells a greeting from a move in every game and language; nor does a blank line
end a turn for sure (an HTML reply has one between all of its lines, `html_text`, and some
people leave one between a turn's moves). So the lines below are kept apart (`Reply.below`) for
the game to judge (`mail.services.replies`): one written as the mail writes a move (a number of
its list, a guard "#12") or read by the game as one of the seat's moves at that point of the
turn is played; the first that is neither ends the actions, and it and all below it are the
writer's own words, not read. The first line is always an action: if it is no move, the answer
says so. Below the block `say` and `chat:` lines are chat as above, and a line of the form
"if ... then ..." is an action ("If you want a rematch, say so" is not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

# How mail programs introduce the mail they quote, in the languages players here write (and the
# French one, long read): "On ... wrote:", "Op ... schreef ...:", "Op ... heeft ... het volgende
# geschreven:" (Apple Mail), "Am ... schrieb ...:", "Le ... a écrit :", Outlook's plain-text rule.
QUOTE_INTRO = re.compile(r"^(on .+ wrote:|op .+ schreef .+:|op .+ het volgende geschreven\s?:|am .+ schrieb .+:|le .+ a écrit\s?:"
                         r"|-{5,}\s*(original message|oorspronkelijk bericht|ursprüngliche nachricht)\s*-{5,})$", re.IGNORECASE)
# Outlook quotes with no ">": the old mail's headers (after a rule of underscores, or alone on a
# phone), then the old mail as it was. A "From:" line opens them only when a "Sent:" follows.
HEADER_FROM = re.compile(r"^(from|van|von|de)\s?:\s*\S", re.IGNORECASE)
HEADER_SENT = re.compile(r"^(sent|date|verzonden|datum|gesendet|envoy[ée])\s?:\s*\S", re.IGNORECASE)
RULE = re.compile(r"^_{10,}$")
SAY = re.compile(r"^say(?:\s+|:\s*|$)", re.IGNORECASE)
# "chat:" alone, or with the chat's first line after it ("chat: nice move"); every line below is chat.
CHAT_MARKER = re.compile(r"^chat\s*(:\s*(?P<said>.*)|$)", re.IGNORECASE)
# What phones and mail programs add under a reply without the "-- " signature line, in English,
# Dutch (the players' other language), French and German.
SIGNED = re.compile(r"^(sent from my |get outlook for |sent with |envoy[ée] de mon |verstuurd (vanaf|met) |verzonden (vanaf|met) "
                    r"|download outlook voor |von meinem .* gesendet|gesendet (von|mit) )", re.IGNORECASE)
CONDITIONAL = re.compile(r"^\s*if\s", re.IGNORECASE)
# A conditional line whole: below the actions "If you want a rematch, say so" is prose.
CONDITIONAL_WHOLE = re.compile(r"^\s*if\s.*\bthen\b", re.IGNORECASE)


@dataclass
class Reply:
    lines: list[str] = field(default_factory=list)  # the action lines, as written
    chat: list[str] = field(default_factory=list)
    # Lines below the actions' block (after a blank line), as written: moves if the game reads
    # them as moves, else the writer's own words (a greeting, a name).
    below: list[str] = field(default_factory=list)

    @property
    def first(self) -> str:
        return self.lines[0] if self.lines else ""

    def actions(self) -> list[str]:
        """Every action in order: each line split at `;` (a conditional line keeps its `;`,
        which separates its own lines)."""
        return _split(self.lines)

    def actions_below(self) -> list[str]:
        """The lines below the actions' block split as the actions are: each a move only if the
        game reads it as one."""
        return _split(self.below)

    def conditional(self) -> str:
        """The reply's conditional lines as one, `;` between them (as `;` separates every
        action, a new line separates them too): a line starting with `if` starts one, any other
        goes on the one before (a mail program cut a long line at 78 columns)."""
        found: list[str] = []
        for line in self.lines:
            if CONDITIONAL.match(line) or not found:
                found.append(line)
            else:
                found[-1] += " " + line
        return "; ".join(found)


def _split(lines: list[str]) -> list[str]:
    found = []
    for line in lines:
        if CONDITIONAL.match(line):
            found.append(line)
        else:
            found.extend(part.strip() for part in line.split(";") if part.strip())
    return found


def quote_starts(lines: list[str], index: int) -> bool:
    """Whether the quoted mail (or a signature) starts at this line of the reply (lines stripped).
    Everything from there on is the old mail's: read as actions, its lines were moves nobody
    meant, and read as chat they posted the old mail, its reply address too, for all to see."""
    line = lines[index]
    if introduction_length(lines, index) or line == "--" or SIGNED.match(line):
        return True
    if RULE.match(line):
        return bool(HEADER_FROM.match(_next_written(lines, index)))
    return bool(HEADER_FROM.match(line)) and bool(HEADER_SENT.match(_next_written(lines, index)))


def _next_written(lines: list[str], index: int) -> str:
    """The first line after `index` that is not blank. Looked for only where a rule or a "From:"
    line asks, and without copying the rest of the reply: asked at every line, a copy made a
    reply of many short lines cost the square of its length to read."""
    return next((lines[later] for later in range(index + 1, len(lines)) if lines[later]), "")


def introduction_length(lines: list[str], index: int) -> int:
    """How many lines the introduction of a quote at this line takes ("On ... wrote:"): 0 for
    none, 2 for one Gmail wrapped ("On ... Scrapyard <play+...>" / "wrote:"), whose two lines
    joined name the quoted mail's address, which one's own two lines seldom end with."""
    if QUOTE_INTRO.match(lines[index]):
        return 1
    if index + 1 < len(lines):
        joined = f"{lines[index]} {lines[index + 1]}"
        return 2 if "@" in joined and QUOTE_INTRO.match(joined) else 0
    return 0


def _quote_below(lines: list[str], index: int) -> int:
    """Lines to skip when the quote comes first and the reply is written below it (Thunderbird's
    way, and netiquette's): an introduction with ">" lines under it, before anything was written.
    0 when the quote does not come first so: what follows is the old mail's."""
    length = introduction_length(lines, index)
    following = next((later for later in lines[index + length:] if later), "")
    return length if length and following.startswith(">") else 0


def read(text: str) -> Reply:
    reply, chatting, started, block_ended = Reply(), False, False, False
    lines = [raw.strip() for raw in text.splitlines()]
    index = 0
    while index < len(lines):
        line = lines[index]
        introduction = 0 if started else _quote_below(lines, index)
        index += introduction or 1
        if introduction:
            continue  # the quote's introduction, above the quote the reply is written under
        if line.startswith(">"):
            if started:
                break  # the quote of the mail answered: what follows is the old mail's
            continue
        if quote_starts(lines, index - 1):
            break
        if not line:
            block_ended = bool(reply.lines)  # a blank line ends the actions' block, once it has one
            continue
        started = True
        if chatting:
            reply.chat.append(line)
        elif marker := CHAT_MARKER.match(line):
            chatting = True
            if marker["said"]:
                reply.chat.append(marker["said"])
        elif SAY.match(line):
            said = SAY.sub("", line, count=1).strip()
            if said:
                reply.chat.append(said)
        elif block_ended and not CONDITIONAL_WHOLE.match(line):
            reply.below.append(line)
        else:
            reply.lines.append(line)
    return reply


# Tags that end a line as a mail program shows the mail, and tags whose text nobody sees.
BLOCK_TAGS = frozenset({"address", "blockquote", "br", "div", "dl", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
                        "li", "ol", "p", "pre", "table", "tr", "ul"})
UNSEEN_TAGS = frozenset({"head", "script", "style", "template", "title"})


class _Seen(HTMLParser):
    """An HTML mail's text as its reader sees it: a line per block, the old mail of a
    <blockquote> quoted with ">" as a plain-text reply quotes it, entities read, and nothing of
    the head (an Outlook reply's styles came first and were read as its first move)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.line: list[str] = []
        self.quoted = self.unseen = self.pre = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self._tag(tag, 1)

    def handle_endtag(self, tag: str) -> None:
        self._tag(tag, -1)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        if tag in BLOCK_TAGS:
            self._flush()

    def _tag(self, tag: str, step: int) -> None:
        if tag in UNSEEN_TAGS:
            self.unseen = max(0, self.unseen + step)
        elif tag in BLOCK_TAGS:
            self._flush()  # before the depth changes: the line belongs where it was written
            if tag == "blockquote":
                self.quoted = max(0, self.quoted + step)
            elif tag == "pre":
                self.pre = max(0, self.pre + step)

    def handle_data(self, data: str) -> None:
        if self.unseen:
            return
        if not self.pre:
            self.line.append(re.sub(r"\s+", " ", data))
            return
        first, *rest = data.split("\n")
        self.line.append(first)
        for part in rest:
            self._flush()
            self.line.append(part)

    def _flush(self) -> None:
        text = "".join(self.line).replace("\xa0", " ").strip()
        self.line = []
        if text:
            self.lines.append("> " * self.quoted + text)
        elif self.lines and self.lines[-1]:
            self.lines.append("")


def html_text(html: str) -> str:
    """The text of an HTML-only reply, to be read as a plain-text one is."""
    seen = _Seen()
    seen.feed(html)
    seen.close()
    seen._flush()
    return "\n".join(seen.lines)


def unflowed(text: str, delsp: bool = False) -> str:
    """Text sent as format=flowed (RFC 3676; Thunderbird, Apple Mail) as its writer typed it: a
    line ending in a space goes on in the next line of the same quote depth (a conditional line
    the writer kept on one line came cut at 72 columns), the space a program put before a line
    starting with a space, ">" or "From " is taken off, and with DelSp=yes the joining space too."""
    lines: list[str] = []
    joining, lines_depth = False, 0
    for line in text.split("\n"):
        line = line.rstrip("\r")
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        content = content.removeprefix(" ")  # space-stuffed (or the space after a quote's ">")
        if joining and depth == lines_depth:
            lines[-1] += content
        else:
            lines.append(">" * depth + (" " if depth else "") + content)
        lines_depth = depth
        joining = content.endswith(" ") and content != "-- "
        if joining and delsp:
            lines[-1] = lines[-1][:-1]
    return "\n".join(lines)
