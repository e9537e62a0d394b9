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


def number(value: Any) -> str:
    """A score as people write it: 8, not 8.0 (a forfeit's scores are floats); 2.5 stays."""
    return f"{value:g}" if isinstance(value, float) else str(value)


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


def thread_subject(game: dict[str, Any]) -> str:
    """One subject for every mail of a game, whatever it tells (the news is the body's first
    line): its number, its game and its players, so a mail program keeps them in one thread."""
    players = " v ".join(player_name(seat) for seat in game.get("seats", [])) or "open seats"
    return f"Scrapyard game {game['id']}: {game['rules']}, {players}"[:200]


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
    """What others said in the game's chat since the reader's last mail, the text board, then the
    presentation under it."""
    return [*chat_lines(ctx.get("chat") or []), ctx["board"].rstrip("\n"), "", *panel_lines(ctx)]


def chat_lines(lines: list[dict[str, Any]]) -> list[str]:
    if not lines:
        return []
    shown = [wrap(f"  {line['username']}: {line['text']}", " " * 4) for line in lines]
    return ["Chat since your last mail (reply with: say ... to answer):", *shown, ""]


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
    return Mail(thread_subject(game), "\n".join(lines) + "\n", as_html(lines))


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
    return Mail(thread_subject(game), "\n".join(lines) + "\n", as_html(lines))


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
    return Mail(thread_subject(game), "\n".join(lines) + "\n", as_html(lines))


def game_started(ctx: dict[str, Any]) -> Mail:
    game = ctx["game"]
    players = ", ".join(f"seat {seat['seat']}: {player_name(seat)}" for seat in game["seats"])
    lines = [
        wrap(f"{ctx['username']}, {title(game)} has started. Players: {players}."),
        wrap(f"You play seat {ctx['seat']}. You will get a mail whenever it is your turn."),
        "",
        *board_lines(ctx),
    ]
    if ctx["notation"]:  # the first mover's one mail: the start and the moves together
        lines += ["It is your turn: your legal moves:", *numbered(ctx["notation"]), ""]
        if ctx.get("deadline"):
            lines += [f"Your deadline: {local_time(ctx['deadline'], ctx['time_zone'])}", ""]
        lines += how_to_reply(ctx["seq"])
    lines += footer(game["id"], ctx["unsubscribe"], ctx.get("reply_to", ""))
    return Mail(thread_subject(game), "\n".join(lines) + "\n", as_html(lines))


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
        lines.append("Scores: " + ", ".join(f"{names.get(i, str(i))} {number(score)}" for i, score in enumerate(scores)))
    lines += [
        wrap(f"The seed, published now so anyone can check every roll and draw: {ctx['seed']}"),
        "",
        *board_lines(ctx),
        f"Replay: {game_url(game['id'])}",
        *footer(None, ctx["unsubscribe"], ctx.get("reply_to", "")),
    ]
    return Mail(thread_subject(game), "\n".join(lines) + "\n", as_html(lines))


def answer(ctx: dict[str, Any]) -> Mail:
    """The answer to a reply: what was done, or why not; then the game as it stands."""
    lines = [wrap(ctx["said"]), ""]
    if ctx.get("board"):
        lines += board_lines(ctx)
    if ctx.get("notation"):
        lines += ["Your legal moves now:", *numbered(ctx["notation"]), "", *how_to_reply(ctx["seq"])]
    elif ctx.get("game", {}).get("status") == "finished":
        words = presentation.end_words(ctx.get("presentation") or {}, ctx["game"].get("result"))
        lines.append(f"Game {ctx['game']['id']} is over ({words}): nothing more can be played in it.")
    elif ctx.get("game"):
        lines.append("It is not your turn now: you will get a mail when it is.")
    lines += footer(ctx["game"]["id"] if ctx.get("game") else None, ctx["unsubscribe"], ctx.get("reply_to", ""))
    return Mail(ctx["subject"], "\n".join(lines) + "\n", as_html(lines))


def help_text(ctx: dict[str, Any]) -> Mail:
    """The whole help, in a reply to a game's mail (ctx: catalogue, game_id, unsubscribe, subject)."""
    lines = [*full_help_lines(ctx["catalogue"]), *footer(ctx.get("game_id"), ctx["unsubscribe"])]
    return Mail(ctx.get("subject") or "Scrapyard: playing by email", "\n".join(lines) + "\n", as_html(lines))


# The words a reply to a game's mail takes, each with what it does: the help lists them all.
REPLY_WORDS = (
    ("3 #17", "the move numbered 3 in the list, in the position of move 17"),
    ("<notation>", "a move written as the mail lists it, optionally with #17"),
    ("1 #17; 4; 2", "a turn of several actions: played in order, each in the position the one "
                    "before made; the first refused stops the rest (one a line works too)"),
    ("if ... then ...", "conditional moves, played while you are away (see below)"),
    ("say <text>", "a line for the game's chat (or write chat: on a line, and the text below it)"),
    ("board", "the board and your moves again"),
    ("draw", "offer a draw (draw accept, draw decline answer an offer)"),
    ("takeback", "ask to take back your last move (takeback accept, takeback decline answer)"),
    ("resign", "give up this game"),
    ("abort", "end the game with no result, before everyone has moved"),
    ("vacation on", "stop your clocks (vacation off starts them again)"),
    ("help", "this text"),
)


def word_lines(pairs: tuple | list, column: int = 18) -> list[str]:
    """`word   what it does` lines, the explanation wrapped under its own column."""
    lines = []
    for word, meaning in pairs:
        if len(word) <= column - 4:
            lines.append(wrap(f"  {word:<{column - 2}}{meaning}", " " * column))
        else:
            lines += [f"  {word}", wrap(" " * column + meaning, " " * column)]
    return lines


def full_help_lines(catalogue: list[dict[str, Any]]) -> list[str]:
    return ["Playing Scrapyard by email", "", *reply_help_lines(), "", *server_help_lines(catalogue)]


def reply_help_lines() -> list[str]:
    return [
        wrap("Every mail that asks for your move shows the board, what happened since your last move and "
             "your legal moves, numbered. Reply to it; the lines above the quoted mail are read:"),
        "",
        *word_lines(REPLY_WORDS),
        "",
        wrap("Quoted lines (starting with >) are skipped, so reply above or below the quote as you like. "
             "A reply must come from your account's address; every reply gets an answer. A reply with "
             "no #17 is played in the position of the mail it answers, never in a later one."),
        "",
        "Conditional moves (two-player games, while you wait for your opponent):",
        wrap("A line lists the moves in the order they would be played, each by whoever acts at that "
             "point: your opponent's first, yours last; if and then only separate them, and ; starts "
             "another line. A number is a place in the list of legal moves of whoever plays it there."),
        "",
        "  if 3 then 5; if 4 then 1",
        wrap("      if they play their move 3, you play your move 5; if their 4, your 1.", " " * 6),
        "",
        wrap("In a game whose turn has several actions, write your opponent's actions in order, then "
             "yours; keep the whole line on one line of your reply. For three actions:"),
        "",
        "if forest grow 2,5 then mountain start 0,1 then fire small then place fire 3,3",
        wrap("      their three actions (forest grow 2,5, mountain start 0,1, fire small), then the move "
             "of yours that follows them: placing the fire they took on 3,3. Numbers work too, each "
             "from the list of whoever acts there: if 2 then 7 then 1 then 12.", " " * 6),
    ]


def games_lines(catalogue: list[dict[str, Any]]) -> list[str]:
    """The games this server plays (its rules catalogue, as installed), with their options."""
    lines = ["The games here (the first word is the one new and seek take):", ""]
    for game in catalogue:
        players = (f"{game['min_players']} players" if game["min_players"] == game["max_players"]
                   else f"{game['min_players']} to {game['max_players']} players")
        lines.append(f"  {game['id']:<16} {game['title']}, {players}")
        for option in game.get("options", []):
            lines.append(wrap(f"      {option['name']}={json_word(option.get('default'))}: {option_words(option)}", " " * 8))
    return lines


def option_words(option: dict[str, Any]) -> str:
    """An option's meaning (its description's first sentence, or what comes before its first
    colon when that is long) and the values it takes."""
    meaning = str(option.get("description", "")).split(". ")[0].rstrip(".")
    if len(meaning) > 100:
        meaning = meaning.split(":")[0] + " (see the game's page)"
    choices = [json_word(choice) for choice in option.get("choices", [])] or (
        ["true", "false"] if option.get("type") == "bool" else [])
    return f"{meaning}; one of {', '.join(choices)}" if choices else meaning


def json_word(value: Any) -> str:
    return {True: "true", False: "false", None: "none"}.get(value, str(value)) if isinstance(value, (bool, type(None))) else str(value)


def server_help_lines(catalogue: list[dict[str, Any]]) -> list[str]:
    """The commands a mail to the server's own address takes (mail.commands), with examples made
    from the installed games, then the games themselves."""
    address = email_address(settings.DEFAULT_FROM_EMAIL)
    first = catalogue[0]["id"] if catalogue else "<game>"
    many = next((game for game in catalogue if game["max_players"] >= 3), catalogue[0] if catalogue else None)
    option = next((game for game in catalogue if game.get("options")), None)
    commands = [
        ("help", "this text"),
        ("register <name>", "make an account for this address (the answer says how to confirm it)"),
        ("games", "your games, whose turn it is, and their reply addresses"),
        ("games open", "the games waiting for players, and who is looking for a game"),
        (f"new {first}", f"open a game of {first} for 2 players"),
    ]
    if many:
        commands.append((f"new {many['id']} players 3 days 3", "3 players, 3 days a move"))
    if option:
        chosen = option["options"][0]
        value = (chosen.get("choices") or [True])[-1]
        commands.append((f"new {option['id']} {chosen['name']}={json_word(value)}", "a game with an option set"))
    commands += [
        ("join 42", "take a seat in game 42"),
        (f"seek {first}", "be paired with someone who wants the same game"),
        ("board 42", "the board of game 42 as you may see it"),
        ("resign 42", "give up game 42 (draw 42, takeback 42 work too)"),
        ("analysis 42", "the bot's analysis of finished game 42, by mail"),
    ]
    return [
        wrap(f"Mail these to {address} (the first line of the mail, or its subject):"),
        "",
        *word_lines(commands, 24),
        "",
        *games_lines(catalogue),
        "",
        wrap("What is sent when: a mail when a game starts, when it is your turn, when a deadline "
             "nears and when a game ends (all of a game's mails in one thread); or one digest a day, "
             "as chosen on your account page. Games whose clock gives under an hour a move send no "
             "mail per turn (a reply is too slow for them): you get the deadline warning instead. "
             "When your only legal move is forced, the server plays it for you, unless you turn that "
             "off on your account page."),
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
