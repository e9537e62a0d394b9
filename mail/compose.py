"""The words of every mail: plain text first (a monospace board, lines within 78 columns where the
board allows), and an HTML alternative showing the same. Everything shown comes from the same
per-seat selectors as the API, so a mail holds nothing its reader's seat could not see there.
"""

from __future__ import annotations

import datetime as dt
import html
import re
import textwrap
import zoneinfo
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from games.text_board import player_name
from rules import presentation

WIDTH = 78
LINK = re.compile(r"https?://[^\s<>\"]+")
MOVES_LISTED = 150  # a longer list is cut: the rest are still playable by their notation
COMMANDS = ("Other replies: board (this mail again), draw, takeback, resign, abort, vacation on, vacation off, "
            "help.")


@dataclass
class Mail:
    subject: str
    text: str
    html: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def wrap(line: str, indent: str = "") -> str:
    return "\n".join(textwrap.wrap(line, WIDTH, subsequent_indent=indent, break_on_hyphens=False)) or ""


def local_time(at: dt.datetime | None, time_zone: str) -> str:
    if at is None:
        return "no clock"
    try:
        zone = zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo("UTC")
    return at.astimezone(zone).strftime(f"%a %d %b %Y %H:%M {time_zone}")


def game_url(game_id: int) -> str:
    return f"{settings.SCRAPYARD_SITE_URL}/games/{game_id}/"


def title(game: dict[str, Any]) -> str:
    return f"Scrapyard game {game['id']} ({game['rules']})"


def history(events: list[dict[str, Any]], game: dict[str, Any]) -> list[str]:
    names = {seat["seat"]: player_name(seat) for seat in game["seats"]}
    lines = []
    for event in events:
        who = f"{names.get(event['seat'], 'seat ' + str(event['seat']))}: " if event["seat"] is not None else ""
        lines.append(wrap(f"  {event['seq']:>4}. {who}{event['text']}", " " * 8))
    return lines


def numbered(notation: list[str]) -> list[str]:
    shown = [wrap(f"  {number:>3}. {text}", " " * 7) for number, text in enumerate(notation[:MOVES_LISTED], start=1)]
    if len(notation) > MOVES_LISTED:
        shown.append(wrap(f"  ... and {len(notation) - MOVES_LISTED} more: reply with a move's notation to play one of them."))
    return shown


def how_to_reply(seq: int) -> list[str]:
    return [
        wrap(f"To play, reply to this mail: the first line of your reply holds the move's number in the list "
             f"above, or its notation, then #{seq} (the position this mail shows), for example:"),
        f"    1 #{seq}",
        wrap("A reply to an older mail is refused, never played in the wrong position. " + COMMANDS),
    ]


def footer(game_id: int | None, unsubscribe_url: str, reply_to: str = "") -> list[str]:
    lines = ["", "-- "]
    if reply_to:  # named in the body too: some mail programs hide Reply-To, or forwarders drop it
        lines.append(f"Reply to: {reply_to}")
    if game_id is not None:
        lines.append(f"On the web: {game_url(game_id)}")
    lines.append(f"Mail settings: {settings.SCRAPYARD_SITE_URL}/account/")
    lines += ["Unsubscribe:", f"  {unsubscribe_url}"]  # its own line: it fits 78 columns whatever the site's name
    return lines


def panel_lines(ctx: dict[str, Any]) -> list[str]:
    """The rules' presentation for the reader's seat (`rules.presentation`) as every text surface
    writes it: the prompt, a line per seat, the cells the last move changed; then a blank line.
    Nothing when the context has no presentation (a mail about no game)."""
    shown, game = ctx.get("presentation"), ctx.get("game") or {}
    if not shown:
        return []
    names = [player_name(seat) for seat in game.get("seats", [])]
    acting = game.get("to_act", []) if game.get("status") == "active" else []
    return [*presentation.text_lines(shown, names, you=ctx.get("seat"), acting=acting), ""]


def board_lines(ctx: dict[str, Any]) -> list[str]:
    """The text board, then the presentation under it."""
    return [ctx["board"].rstrip("\n"), "", *panel_lines(ctx)]


def your_turn(ctx: dict[str, Any]) -> Mail:
    """ctx: game (summary), username, seat, board, presentation, events, notation, seq, deadline,
    time_zone, unsubscribe."""
    game = ctx["game"]
    lines = [
        wrap(f"{ctx['username']}, it is your turn in {title(game)}, at move {ctx['seq']}."),
        "",
        *board_lines(ctx),
    ]
    if ctx["events"]:
        lines += ["Since your last move:", *history(ctx["events"], game), ""]
    lines += ["Your legal moves:", *numbered(ctx["notation"]), ""]
    lines.append(f"Your deadline: {local_time(ctx['deadline'], ctx['time_zone'])}")
    lines.append("")
    lines += how_to_reply(ctx["seq"])
    lines += footer(game["id"], ctx["unsubscribe"], ctx.get("reply_to", ""))
    subject = f"{title(game)}: your turn (move {ctx['seq']})"
    return Mail(subject, "\n".join(lines) + "\n", as_html(lines))


def proposal(ctx: dict[str, Any]) -> Mail:
    """Another seat offers a draw or asks to take a move back: what it asks, how to answer, and
    the moves too when it is the reader's turn (accepting or declining is not a move)."""
    game = ctx["game"]
    names = {seat["seat"]: player_name(seat) for seat in game["seats"]}
    lines = []
    offer, request = game.get("draw_offer"), game.get("takeback_request")
    if offer and offer["by"] != ctx["seat"] and ctx["seat"] not in offer["accepted"]:
        lines += [wrap(f"{names.get(offer['by'], 'A player')} offers a draw in {title(game)}. To agree, reply with "
                       f"the first line: draw accept. To refuse: draw decline. Moving instead leaves the offer open "
                       f"until its player moves again."), ""]
    if request and request["by"] != ctx["seat"] and ctx["seat"] not in request["accepted"]:
        lines += [wrap(f"{names.get(request['by'], 'A player')} asks to take back their move {request['undo']} in "
                       f"{title(game)}. To agree, reply with the first line: takeback accept. To refuse: takeback "
                       f"decline."), ""]
    if not lines:
        lines += [wrap(f"A proposal in {title(game)} was answered before this mail was written."), ""]
    lines += board_lines(ctx)
    if ctx["events"]:
        lines += ["Since your last move:", *history(ctx["events"], game), ""]
    if ctx["notation"]:
        lines += ["Your legal moves:", *numbered(ctx["notation"]), "", *how_to_reply(ctx["seq"])]
    lines += footer(game["id"], ctx["unsubscribe"], ctx.get("reply_to", ""))
    what = "a draw is offered" if offer else "a takeback is asked"
    return Mail(f"{title(game)}: {what} (move {ctx['seq']})", "\n".join(lines) + "\n", as_html(lines))


def deadline_warning(ctx: dict[str, Any]) -> Mail:
    game = ctx["game"]
    lines = [
        wrap(f"{ctx['username']}, 80% of your time for this move in {title(game)} is used."),
        f"Your deadline: {local_time(ctx['deadline'], ctx['time_zone'])}",
        "",
        *board_lines(ctx),
        "Your legal moves:",
        *numbered(ctx["notation"]),
        "",
        *how_to_reply(ctx["seq"]),
        *footer(game["id"], ctx["unsubscribe"], ctx.get("reply_to", "")),
    ]
    return Mail(f"{title(game)}: your deadline is near", "\n".join(lines) + "\n", as_html(lines))


def game_started(ctx: dict[str, Any]) -> Mail:
    game = ctx["game"]
    players = ", ".join(f"seat {seat['seat']}: {player_name(seat)}" for seat in game["seats"])
    lines = [
        wrap(f"{ctx['username']}, {title(game)} has started. Players: {players}."),
        wrap(f"You play seat {ctx['seat']}. You will get a mail whenever it is your turn."),
        "",
        *board_lines(ctx),
        *footer(game["id"], ctx["unsubscribe"], ctx.get("reply_to", "")),
    ]
    return Mail(f"{title(game)}: the game has started", "\n".join(lines) + "\n", as_html(lines))


def game_over(ctx: dict[str, Any]) -> Mail:
    game = ctx["game"]
    result = game["result"] or {}
    names = {seat["seat"]: player_name(seat) for seat in game["seats"]}
    winners = ", ".join(names.get(seat, str(seat)) for seat in result.get("winners", [])) or "nobody"
    scores = result.get("scores")
    lines = [
        wrap(f"{title(game)} is over: {presentation.end_words(ctx['presentation'], result)}. Winner: {winners}."),
    ]
    if isinstance(scores, list):
        lines.append("Scores: " + ", ".join(f"{names.get(i, str(i))} {score}" for i, score in enumerate(scores)))
    lines += [
        wrap(f"The seed, published now so anyone can check every roll and draw: {ctx['seed']}"),
        "",
        *board_lines(ctx),
        f"Replay: {game_url(game['id'])}",
        *footer(None, ctx["unsubscribe"], ctx.get("reply_to", "")),
    ]
    return Mail(f"{title(game)}: game over", "\n".join(lines) + "\n", as_html(lines))


def answer(ctx: dict[str, Any]) -> Mail:
    """The answer to a reply: what was done, or why not; then the game as it stands."""
    lines = [wrap(ctx["said"]), ""]
    if ctx.get("board"):
        lines += board_lines(ctx)
    if ctx.get("notation"):
        lines += ["Your legal moves now:", *numbered(ctx["notation"]), "", *how_to_reply(ctx["seq"])]
    elif ctx.get("game"):
        lines.append("It is not your turn now: you will get a mail when it is.")
    lines += footer(ctx["game"]["id"] if ctx.get("game") else None, ctx["unsubscribe"], ctx.get("reply_to", ""))
    return Mail(ctx["subject"], "\n".join(lines) + "\n", as_html(lines))


def help_text(ctx: dict[str, Any]) -> Mail:
    lines = [
        "Playing Scrapyard by email",
        "",
        wrap("Every mail that asks for your move shows the board, what happened since your last move and "
             "your legal moves, numbered. Reply to it with the first line holding:"),
        "",
        "  3 #17        the move numbered 3, in the position of move 17",
        "  <notation>   a move written as the mail lists it, optionally with #17",
        "  board        the board and your moves again",
        "  draw         offer a draw (draw accept, draw decline answer an offer)",
        "  takeback     ask to take back your last move (takeback accept, takeback",
        "               decline answer a request)",
        "  resign       give up this game",
        "  abort        end the game with no result, before everyone has moved",
        "  vacation on  stop your clocks (vacation off starts them again)",
        "  help         this text",
        "",
        wrap("Quoted lines (starting with >) are skipped, so reply above or below the quote as you like. "
             "A reply must come from your account's address; every reply gets an answer. A reply with "
             "no #17 is played in the position of the mail it answers, never in a later one."),
        "",
        *server_help_lines(),
        *footer(ctx.get("game_id"), ctx["unsubscribe"]),
    ]
    return Mail("Scrapyard: playing by email", "\n".join(lines) + "\n", as_html(lines))


def server_help_lines() -> list[str]:
    """The commands a mail to the server's own address takes (mail.commands), with examples."""
    address = email_address(settings.DEFAULT_FROM_EMAIL)
    return [
        wrap(f"Mail these to {address} (the first line of the mail, or its subject):"),
        "",
        "  help                 this text",
        "  games                your games, whose turn it is, and their reply addresses",
        "  new scavenge         open a game of scavenge for 2 players",
        "  new toy_race players 3 days 3",
        "                       3 players, 3 days a move",
        "  join 42              take a seat in game 42",
        "  seek scavenge        be paired with someone who wants the same game",
        "  resign 42            give up game 42 (draw 42, takeback 42 work too)",
        "  analysis 42          the bot's analysis of finished game 42, by mail",
        "",
        wrap("What is sent when: a mail when a game starts, when it is your turn, when a deadline "
             "nears and when a game ends; or one digest a day, as chosen on your account page. "
             "Games whose clock gives under an hour a move send no mail per turn (a reply is too "
             "slow for them): you get the deadline warning instead. When your only legal move is "
             "forced, the server plays it for you, unless you turn that off on your account page."),
    ]


def email_address(value: str) -> str:
    from email.utils import parseaddr

    return parseaddr(value)[1]


def digest(items: list[dict[str, Any]], username: str, unsubscribe: str) -> Mail:
    lines = [wrap(f"{username}, your Scrapyard digest: {len(items)} notice(s) since the last one."), ""]
    for item in items:
        lines += ["=" * WIDTH, item["subject"], "=" * WIDTH, item["text"].split("\n-- \n")[0].rstrip("\n"), ""]
    lines += footer(None, unsubscribe)
    return Mail(f"Scrapyard digest: {len(items)} notice(s)", "\n".join(lines) + "\n", as_html(lines))


def verify_address(ctx: dict[str, Any]) -> Mail:
    """The one mail an address gets before its owner says it is theirs."""
    lines = [
        wrap(f"Someone (we hope you) gave this address, {ctx['to']}, to the Scrapyard account "
             f"{ctx['username']}. Until you confirm it, no mail about games goes to it."),
        "",
        "To confirm, open this link:",
        f"  {ctx['link']}",
        "",
        wrap("Not you? Ignore this mail: you will get at most one like it a day, and no other."),
    ]
    return Mail("Scrapyard: confirm your address", "\n".join(lines) + "\n", as_html(lines))


def bounce_notice(ctx: dict[str, Any]) -> Mail:
    lines = [wrap(ctx["said"])]
    return Mail(ctx["subject"], "\n".join(lines) + "\n")


def as_html(lines: list[str]) -> str:
    """The same words as HTML: the board and lists kept monospace, links clickable."""
    body = LINK.sub(lambda found: f'<a href="{found[0]}">{found[0]}</a>', html.escape("\n".join(lines)))
    return (
        '<!doctype html><html><body style="background:#fff;color:#111">'
        f'<pre style="font-family:Menlo,Consolas,monospace;font-size:13px;line-height:1.35">{body}</pre>'
        "</body></html>"
    )
