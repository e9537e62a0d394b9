"""The words of every mail: plain text first (a monospace board, lines within 78 columns where the
board allows), and an HTML alternative showing the same. Everything shown comes from the same
per-seat selectors as the API, so a mail holds nothing its reader's seat could not see there.
"""

from __future__ import annotations

import datetime as dt
import functools
import html
import re
import textwrap
import zoneinfo
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.utils import formats, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

import rules
from games import words
from games.text_board import mover_name, player_name
from rules import presentation

WIDTH = 78
LINK = re.compile(r"https?://[^\s<>\"]+")
MOVES_LISTED = 150  # a longer list is cut: the rest are still playable by their notation
COMMANDS = gettext_noop("Other replies: board (this mail again), draw, takeback, resign, abort, vacation on, vacation off, "
                        "help.")


def _language_now() -> str:
    return translation.get_language() or settings.LANGUAGE_CODE


@dataclass
class Mail:
    """A mail as composed; `language` is the one it was written in (the active one when made,
    inside `speaking(account)`), sent as its Content-Language."""

    subject: str
    text: str
    html: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    language: str = field(default_factory=_language_now)


def number(value: Any) -> str:
    """A score as the reader writes it: 8, not 8.0 (a forfeit's scores are floats); 2.5 stays (2,5 in Dutch)."""
    return words.number_text(value) if isinstance(value, float) else str(value)  # 2,5 in Dutch


def wrap(line: str, indent: str = "") -> str:
    # A link is never cut, even where it cannot fit: cut in two, the half a mail program links
    # opens no page (a long site's password link did). Other long words are cut to fit.
    cut = LINK.search(line) is None
    return "\n".join(textwrap.wrap(line, WIDTH, subsequent_indent=indent, break_on_hyphens=False,
                                    break_long_words=cut)) or ""


def local_time(at: dt.datetime | None, time_zone: str, *, short: bool = False) -> str:
    """A time (a deadline, a chat line's, when a game ended or an address was replaced) in the
    reader's time zone, written the way its language writes a date ("Mon 02 Mar 2026 14:00
    Europe/Paris"; "ma 02 mrt 2026 14:00 Europe/Amsterdam"). `short`: without the year and the
    zone ("ma 02 mrt 14:00"), for lines under a heading that names the zone once."""
    if at is None:
        return _("no clock")
    try:
        zone = zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone, time_zone = zoneinfo.ZoneInfo("UTC"), "UTC"
    local = at.astimezone(zone)
    if translation.get_language() in (None, "en", "en-us"):
        return local.strftime("%a %d %b %H:%M" if short else f"%a %d %b %Y %H:%M {time_zone}")
    # `b`, not `M`: Django's `M` capitalises the month ("Mrt"), which Dutch writes in lower case.
    return formats.date_format(local, "D d b H:i") if short else f"{formats.date_format(local, 'D d b Y H:i')} {time_zone}"


def status_word(status: str) -> str:
    return {"open": _("open"), "active": _("active"), "finished": _("finished")}.get(status, status)


def game_url(game_id: int) -> str:
    return f"{settings.SCRAPYARD_SITE_URL}/games/{game_id}/"


def title(game: dict[str, Any]) -> str:
    return _("Scrapyard game %(id)s (%(game)s)") % {"id": game["id"], "game": game["rules"]}


def thread_subject(game: dict[str, Any]) -> str:
    """One subject for every mail of a game, whatever it tells (the news is the body's first
    line): its number, its game and its players, so a mail program keeps them in one thread."""
    players = " v ".join(player_name(seat) for seat in game.get("seats", [])) or _("open seats")
    return (_("Scrapyard game %(id)s: %(game)s, %(players)s") % {"id": game["id"], "game": game["rules"], "players": players})[:200]


def tournament_url(tournament_id: int) -> str:
    return f"{settings.SCRAPYARD_SITE_URL}/tournaments/{tournament_id}/"


def tournament_lines(ctx: dict[str, Any], ended: bool = False) -> list[str]:
    """Which tournament round the game is, and where its pairings and standings are: a member who
    plays only by mail learns it from the game's first and last mails."""
    tournament = ctx.get("tournament")
    if not tournament:
        return []
    said = (_("This was round %(round)s of the tournament %(name)s: its standings and next round at %(url)s") if ended
            else _("This is round %(round)s of the tournament %(name)s: its pairings and standings at %(url)s"))
    return [wrap(said % {**tournament, "url": tournament_url(tournament["id"])})]


def history(events: list[dict[str, Any]]) -> list[str]:
    """The events (`events_visible` with notation), numbered; a move after its player's name."""
    return [wrap(f"  {event['seq']:>4}. {_line(event)}", " " * 8) for event in events]


def _line(event: dict[str, Any]) -> str:
    told = told_with_notation(event["text"], event.get("notation"))
    mover = mover_name(event)
    return f"{mover}: {told}" if mover else told


def told_with_notation(said: str, notation: str | None) -> str:
    """A move in the reader's words, its notation after it where that reads otherwise (English
    words are the notation itself)."""
    return said if not notation or notation == said else f"{said} ({notation})"


def with_words(notation: str, said: str | None) -> str:
    """A listed move: its notation, what a reply types, then its words where they read otherwise."""
    return notation if not said or said == notation else f"{notation}  ({said})"


def numbered(notation: list[str], said: list[str] | None = None) -> list[str]:
    """The legal moves, numbered, in notation, each with its words in the reader's language
    (`said`, in the same order) where they differ."""
    said = said or [None] * len(notation)
    shown = [wrap(f"  {number:>3}. {with_words(text, words_of)}", " " * 7)
             for number, (text, words_of) in enumerate(zip(notation[:MOVES_LISTED], said), start=1)]
    if len(notation) > MOVES_LISTED:
        shown.append(wrap("  " + _("... and %(count)s more: reply with a move's notation to play one of them.")
                          % {"count": len(notation) - MOVES_LISTED}))
    return shown


def how_to_reply(seq: int) -> list[str]:
    return [
        wrap(_("To play, reply to this mail: the first line of your reply holds the move's number in the list "
               "above, or its notation, then #%(seq)s (the position this mail shows), for example:") % {"seq": seq}),
        f"    1 #{seq}",
        wrap(_("A reply to an older mail is refused, never played in the wrong position.") + " " + _(COMMANDS)),
    ]


def footer(game_id: int | None, unsubscribe_url: str, reply_to: str = "") -> list[str]:
    lines = ["", "-- "]
    if reply_to:  # named in the body too: some mail programs hide Reply-To, or forwarders drop it
        lines.append(_("Reply to: %(address)s") % {"address": reply_to})
    if game_id is not None:
        lines.append(_("On the web: %(url)s") % {"url": game_url(game_id)})
    lines.append(_("Mail settings: %(url)s") % {"url": f"{settings.SCRAPYARD_SITE_URL}/account/"})
    lines += [_("Unsubscribe:"), f"  {unsubscribe_url}"]  # its own line: it fits 78 columns whatever the site's name
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
    return [*presentation.text_lines(shown, names, you=ctx.get("seat"), acting=acting, say=words.translated), ""]


def board_lines(ctx: dict[str, Any]) -> list[str]:
    """What others said in the game's chat since the reader's last mail, the text board, then the
    presentation under it."""
    return [*chat_lines(ctx.get("chat") or [], ctx.get("time_zone") or "UTC"), ctx["board"].rstrip("\n"), "", *panel_lines(ctx)]


def chat_lines(lines: list[dict[str, Any]], time_zone: str = "UTC") -> list[str]:
    """Each line with when it was said, in the reader's time zone (named once, in the heading):
    lines since the last mail can span days in a correspondence game."""
    if not lines:
        return []
    shown = [wrap(f"  {local_time(line['at'], time_zone, short=True)}  {line['username']}: {line['text']}", " " * 4)
             if line.get("at") else wrap(f"  {line['username']}: {line['text']}", " " * 4) for line in lines]
    heading = _("Chat since your last mail, times in %(zone)s (reply with: say ... to answer):") % {"zone": _zone_name(time_zone)}
    return [wrap(heading), *shown, ""]


def _zone_name(time_zone: str) -> str:
    try:
        zoneinfo.ZoneInfo(time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return "UTC"
    return time_zone


def your_turn(ctx: dict[str, Any]) -> Mail:
    """ctx: game (summary), username, seat, board, presentation, events, notation, seq, deadline,
    time_zone, unsubscribe."""
    game = ctx["game"]
    lines = [
        wrap(_("%(name)s, it is your turn in %(game)s, at move %(seq)s.") % {"name": ctx["username"], "game": title(game), "seq": ctx["seq"]}),
        "",
        *board_lines(ctx),
    ]
    if ctx["events"]:
        lines += [_("Since your last move:"), *history(ctx["events"]), ""]
    lines += [_("Your legal moves:"), *numbered(ctx["notation"], ctx.get("words")), ""]
    lines.append(_("Your deadline: %(when)s") % {"when": local_time(ctx["deadline"], ctx["time_zone"])})
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
        lines += [wrap(_("%(name)s offers a draw in %(game)s. To agree, reply with the first line: draw accept. To "
                         "refuse: draw decline. Moving instead leaves the offer open until its player moves again.")
                       % {"name": names.get(offer["by"]) or _("A player"), "game": title(game)}), ""]
    if request and request["by"] != ctx["seat"] and ctx["seat"] not in request["accepted"]:
        lines += [wrap(_("%(name)s asks to take back their move %(move)s in %(game)s. To agree, reply with the first "
                         "line: takeback accept. To refuse: takeback decline.")
                       % {"name": names.get(request["by"]) or _("A player"), "move": request["undo"], "game": title(game)}), ""]
    if not lines:
        lines += [wrap(_("A proposal in %(game)s was answered before this mail was written.") % {"game": title(game)}), ""]
    lines += board_lines(ctx)
    if ctx["events"]:
        lines += [_("Since your last move:"), *history(ctx["events"]), ""]
    if ctx["notation"]:
        lines += [_("Your legal moves:"), *numbered(ctx["notation"], ctx.get("words")), "", *how_to_reply(ctx["seq"])]
    lines += footer(game["id"], ctx["unsubscribe"], ctx.get("reply_to", ""))
    return Mail(thread_subject(game), "\n".join(lines) + "\n", as_html(lines))


def stand_in(ctx: dict[str, Any]) -> Mail:
    """The reader's time ran out under the `bot` policy and a stand-in bot plays the seat: how
    to play it again (no turn mails come meanwhile: the bot plays each turn before a reply could)."""
    game = ctx["game"]
    bot = next((entry["bot"] for entry in game.get("stand_ins", []) if entry["seat"] == ctx["seat"]), None)
    lines = [wrap(_("%(name)s, your time ran out in %(game)s, and the bot %(bot)s plays your seat from now on. To play "
                    "it again yourself, reply with the first line: return. Until then the bot's moves are your seat's.")
                  % {"name": ctx["username"], "game": title(game), "bot": bot or "?"}), ""]
    lines += board_lines(ctx)
    if ctx["events"]:
        lines += [_("Since your last move:"), *history(ctx["events"]), ""]
    lines += footer(game["id"], ctx["unsubscribe"], ctx.get("reply_to", ""))
    return Mail(thread_subject(game), "\n".join(lines) + "\n", as_html(lines))


def deadline_warning(ctx: dict[str, Any]) -> Mail:
    game = ctx["game"]
    lines = [
        wrap(_("%(name)s, 80%% of your time for this move in %(game)s is used.") % {"name": ctx["username"], "game": title(game)}),
        _("Your deadline: %(when)s") % {"when": local_time(ctx["deadline"], ctx["time_zone"])},
        "",
        *board_lines(ctx),
        _("Your legal moves:"),
        *numbered(ctx["notation"], ctx.get("words")),
        "",
        *how_to_reply(ctx["seq"]),
        *footer(game["id"], ctx["unsubscribe"], ctx.get("reply_to", "")),
    ]
    return Mail(thread_subject(game), "\n".join(lines) + "\n", as_html(lines))


def game_started(ctx: dict[str, Any]) -> Mail:
    game = ctx["game"]
    players = ", ".join(_("seat %(seat)s: %(name)s") % {"seat": seat["seat"], "name": player_name(seat)} for seat in game["seats"])
    lines = [
        wrap(_("%(name)s, %(game)s has started. Players: %(players)s.") % {"name": ctx["username"], "game": title(game), "players": players}),
        wrap(_("You play seat %(seat)s. You will get a mail whenever it is your turn.") % {"seat": ctx["seat"]}),
        *tournament_lines(ctx),
        "",
        *board_lines(ctx),
    ]
    if ctx["notation"]:  # the first mover's one mail: the start and the moves together
        lines += [_("It is your turn: your legal moves:"), *numbered(ctx["notation"], ctx.get("words")), ""]
        if ctx.get("deadline"):
            lines += [_("Your deadline: %(when)s") % {"when": local_time(ctx["deadline"], ctx["time_zone"])}, ""]
        lines += how_to_reply(ctx["seq"])
    lines += footer(game["id"], ctx["unsubscribe"], ctx.get("reply_to", ""))
    return Mail(thread_subject(game), "\n".join(lines) + "\n", as_html(lines))


def game_over(ctx: dict[str, Any]) -> Mail:
    game = ctx["game"]
    result = game["result"] or {}
    names = {seat["seat"]: player_name(seat) for seat in game["seats"]}
    winners = ", ".join(names.get(seat, str(seat)) for seat in result.get("winners", [])) or _("nobody")
    scores = presentation.end_scores(ctx.get("presentation") or {}, result)
    lines = [
        wrap(_("%(game)s is over: %(how)s. Winner: %(winners)s.") % {
            "game": title(game), "how": words.translated(presentation.end_words(ctx["presentation"], result)), "winners": winners}),
    ]
    if ctx.get("finished_at"):
        lines.append(_("Ended: %(when)s") % {"when": local_time(ctx["finished_at"], ctx.get("time_zone") or "UTC")})
    if scores is not None:
        lines.append(_("Scores: %(scores)s") % {"scores": ", ".join(f"{names.get(i, str(i))} {number(score)}" for i, score in enumerate(scores))})
    lines += [
        wrap(_("The seed, published now so anyone can check every roll and draw: %(seed)s") % {"seed": ctx["seed"]}),
        "",
        *board_lines(ctx),
        _("Replay: %(url)s") % {"url": game_url(game["id"])},
        *tournament_lines(ctx, ended=True),
        *footer(None, ctx["unsubscribe"], ctx.get("reply_to", "")),
    ]
    return Mail(thread_subject(game), "\n".join(lines) + "\n", as_html(lines))


def answer(ctx: dict[str, Any]) -> Mail:
    """The answer to a reply: what was done, or why not; then the game as it stands."""
    lines = [wrap(ctx["said"]), ""]
    if ctx.get("board"):
        lines += board_lines(ctx)
    if ctx.get("notation"):
        lines += [_("Your legal moves now:"), *numbered(ctx["notation"], ctx.get("words")), "", *how_to_reply(ctx["seq"])]
    elif ctx.get("game", {}).get("status") == "finished":
        how = words.translated(presentation.end_words(ctx.get("presentation") or {}, ctx["game"].get("result")))
        lines.append(_("Game %(id)s is over (%(how)s): nothing more can be played in it.") % {"id": ctx["game"]["id"], "how": how})
    elif ctx.get("game"):
        lines.append(_("It is not your turn now: you will get a mail when it is."))
    lines += footer(ctx["game"]["id"] if ctx.get("game") else None, ctx["unsubscribe"], ctx.get("reply_to", ""))
    return Mail(ctx["subject"], "\n".join(lines) + "\n", as_html(lines))


def help_text(ctx: dict[str, Any]) -> Mail:
    """The whole help, in a reply to a game's mail (ctx: catalogue, game_id, unsubscribe, subject)."""
    lines = [*full_help_lines(ctx["catalogue"]), *footer(ctx.get("game_id"), ctx["unsubscribe"])]
    return Mail(ctx.get("subject") or _("Scrapyard: playing by email"), "\n".join(lines) + "\n", as_html(lines))


# The words a reply to a game's mail takes, each with what it does: the help lists them all.
REPLY_WORDS = (
    ("3 #17", gettext_noop("the move numbered 3 in the list, in the position of move 17")),
    ("<notation>", gettext_noop("a move written as the mail lists it, optionally with #17")),
    ("1 #17; 4; 2", gettext_noop("a turn of several actions: played in order, each in the position the one "
                                 "before made; the first refused stops the rest (one a line works too)")),
    ("if ... then ...", gettext_noop("conditional moves, played while you are away (see below)")),
    ("say <text>", gettext_noop("a line for the game's chat (or write chat: on a line, and the text below it)")),
    ("board", gettext_noop("the board and your moves again")),
    ("draw", gettext_noop("offer a draw (draw accept, draw decline answer an offer)")),
    ("takeback", gettext_noop("ask to take back your last move (takeback accept, takeback decline answer)")),
    ("resign", gettext_noop("give up this game")),
    ("return", gettext_noop("play your seat again after a stand-in bot took it when your time ran out")),
    ("bye 3", gettext_noop("in a tournament's game: sit out the tournament's round 3 for half a point (bye cancel 3 "
                           "takes it back before it is paired)")),
    ("abort", gettext_noop("end the game with no result, before everyone has moved")),
    ("vacation on", gettext_noop("stop your clocks (vacation off starts them again)")),
    ("help", gettext_noop("this text")),
)


def word_lines(pairs: tuple | list, column: int = 18) -> list[str]:
    """`word   what it does` lines, the explanation wrapped under its own column."""
    lines = []
    for word, meaning in pairs:
        meaning = _(meaning)
        if len(word) <= column - 4:
            lines.append(wrap(f"  {word:<{column - 2}}{meaning}", " " * column))
        else:
            lines += [f"  {word}", wrap(" " * column + meaning, " " * column)]
    return lines


def full_help_lines(catalogue: list[dict[str, Any]]) -> list[str]:
    return [_("Playing Scrapyard by email"), "", *reply_help_lines(catalogue), "", *server_help_lines(catalogue)]


def reply_help_lines(catalogue: list[dict[str, Any]]) -> list[str]:
    return [
        wrap(_("Every mail that asks for your move shows the board, what happened since your last move and "
               "your legal moves, numbered. Reply to it; the lines above the quoted mail are read:")),
        "",
        *word_lines(REPLY_WORDS),
        "",
        wrap(_("Quoted lines (starting with >) are skipped, so reply above or below the quote as you like. "
               "A reply must come from your account's address; every reply gets an answer. A reply with "
               "no #17 is played in the position of the mail it answers, never in a later one.")),
        "",
        wrap(_("Below your moves, after a blank line, you may write as in any letter (good luck, your name): "
               "the first line there that is not one of your moves ends them, and it is not read.")),
        "",
        _("Conditional moves (two-player games, while you wait for your opponent):"),
        wrap(_("A line lists the moves in the order they would be played, each by whoever acts at that "
               "point: your opponent's first, yours last; if and then only separate them, and ; starts "
               "another line. A number is a place in the list of legal moves of whoever plays it there.")),
        "",
        "  if 3 then 5; if 4 then 1",
        wrap("      " + _("if they play their move 3, you play your move 5; if their 4, your 1."), " " * 6),
        *turn_example_lines(catalogue),
    ]


def turn_example_lines(catalogue: list[dict[str, Any]]) -> list[str]:
    """How a conditional line runs through a turn of several actions, worked in an installed game
    (`turn_example`); nothing when no installed game has such turns."""
    example = turn_example(catalogue)
    if example is None:
        return []
    title = next(game["title"] for game in catalogue if game["id"] == example.game)
    return [
        "",
        wrap(_("In a game whose turn has several actions, such as %(game)s, write your opponent's actions in "
               "order, then yours; keep the whole line on one line of your reply, for example:") % {"game": title}),
        "",
        _example_line(example.line),
        wrap("      " + _("their actions (%(theirs)s), then the move of yours that follows them (%(yours)s). The same "
                          "line in numbers, each the place of the move in the list of whoever plays it there:")
             % {"theirs": ", ".join(example.theirs), "yours": example.yours}, " " * 6),
        _example_line(example.numbered),
    ]


def _example_line(line: str) -> str:
    """A line to type as it is: indented as the other examples where it fits, never wrapped."""
    return line if len(line) > WIDTH - 2 else f"  {line}"


@dataclass(frozen=True)
class TurnExample:
    """A conditional line through a turn of several actions, from a game's opening: the
    opponent's actions until the reader first acts, then the reader's move, each the first
    move of the list of whoever plays it there."""

    game: str
    theirs: tuple[str, ...]
    yours: str

    @property
    def line(self) -> str:
        return "if " + " then ".join([*self.theirs, self.yours])

    @property
    def numbered(self) -> str:
        return "if " + " then ".join("1" for _move in [*self.theirs, self.yours])


def turn_example(catalogue: list[dict[str, Any]]) -> TurnExample | None:
    """The example of the first installed game whose turns have several actions and whose
    two-player games take conditional lines."""
    return _turn_example_of(tuple(game["id"] for game in catalogue))


@functools.lru_cache(maxsize=4)  # the rules do not change while the server runs
def _turn_example_of(rules_ids: tuple[str, ...]) -> TurnExample | None:
    return next((example for rules_id in rules_ids if (example := _worked_turn(rules.get(rules_id))) is not None), None)


EXAMPLE_SEED = "help"
EXAMPLE_ACTIONS = 8  # a turn longer than this makes no example that fits a line


def _worked_turn(game: Any) -> TurnExample | None:
    """Through the rules protocol alone: from a two-player opening, the first mover's actions
    while the turn stays theirs, then the other seat's move; each the first of its list (a short
    line, and one a reader finds in the lists of their own game's opening). None unless the
    first mover acts twice or more before the other seat does."""
    if not game.conditional_moves or not game.min_players <= 2 <= game.max_players:
        return None
    state = game.setup(2, None, EXAMPLE_SEED)
    first, played = game.to_act(state), []
    while state is not None and len(first) == 1 and game.to_act(state) == first and len(played) < EXAMPLE_ACTIONS:
        state = _first_listed_played(game, state, first[0], played)
    reader = game.to_act(state) if state is not None else ()
    if len(played) < 2 or len(reader) != 1 or reader == first:
        return None
    if _first_listed_played(game, state, reader[0], played) is None:
        return None
    return TurnExample(game.id, tuple(played[:-1]), played[-1])


def _first_listed_played(game: Any, state: Any, seat: int, played: list[str]) -> Any:
    """The state after the seat's first listed move (its notation added to `played`); None
    when the seat has no move."""
    legal = game.legal_moves(state, seat)
    if not legal:
        return None
    played.append(game.describe_move(state, seat, legal[0]))
    return game.apply(state, seat, legal[0])


def games_lines(catalogue: list[dict[str, Any]]) -> list[str]:
    """The games this server plays (its rules catalogue, as installed), with their options."""
    lines = [_("The games here (the first word is the one new and seek take):"), ""]
    for game in catalogue:
        players = (_("%(count)s players") % {"count": game["min_players"]} if game["min_players"] == game["max_players"]
                   else _("%(least)s to %(most)s players") % {"least": game["min_players"], "most": game["max_players"]})
        lines.append(f"  {game['id']:<16} {game['title']}, {players}")
        for option in game.get("options", []):
            lines.append(wrap(f"      {option['name']}={json_word(option.get('default'))}: {option_words(option)}", " " * 8))
    return lines


def option_words(option: dict[str, Any]) -> str:
    """An option's meaning (its description's first sentence, or what comes before its first
    colon when that is long) and the values it takes."""
    meaning = str(option.get("description", "")).split(". ")[0].rstrip(".")
    if len(meaning) > 100:
        meaning = meaning.split(":")[0] + " " + _("(see the game's page)")
    choices = [json_word(choice) for choice in option.get("choices", [])] or (
        ["true", "false"] if option.get("type") == "bool" else [])
    return _("%(meaning)s; one of %(choices)s") % {"meaning": meaning, "choices": ", ".join(choices)} if choices else meaning


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
        ("help", _("this text")),
        ("register <name>", _("make an account for this address (the answer says how to confirm it)")),
        ("games", _("your games, whose turn it is, and their reply addresses")),
        ("games open", _("the games waiting for players, and who is looking for a game")),
        (f"new {first}", _("open a game of %(game)s for 2 players") % {"game": first}),
    ]
    if many:
        commands.append((f"new {many['id']} players 3 days 3", _("3 players, 3 days a move")))
    if option:
        chosen = option["options"][0]
        value = (chosen.get("choices") or [True])[-1]
        commands.append((f"new {option['id']} {chosen['name']}={json_word(value)}", _("a game with an option set")))
    commands += [
        ("join 42", _("take a seat in game 42")),
        (f"seek {first}", _("be paired with someone who wants the same game")),
        ("board 42", _("the board of game 42 as you may see it")),
        ("resign 42", _("give up game 42 (draw 42, takeback 42 work too)")),
        ("analysis 42", _("the bot's analysis of finished game 42, by mail")),
        ("language nl", _("mail and pages in Dutch (language en: English; taal nl works too)")),
        ("new address", _("new addresses for your commands and games, if one leaked (nieuw adres works too); "
                          "from your own command address, the Reply-To of this mail")),
    ]
    return [
        wrap(_("Mail these to %(address)s (the first line of the mail, or its subject):") % {"address": address}),
        "",
        *word_lines(commands, 24),
        "",
        *games_lines(catalogue),
        "",
        wrap(_("What is sent when: a mail when a game starts, when it is your turn, when a deadline "
               "nears and when a game ends (all of a game's mails in one thread); or one digest a day, "
               "as chosen on your account page. Games whose clock gives under an hour a move send no "
               "mail per turn (a reply is too slow for them): you get the deadline warning instead. "
               "When your only legal move is forced, the server plays it for you, unless you turn that "
               "off on your account page.")),
    ]


def email_address(value: str) -> str:
    from email.utils import parseaddr

    return parseaddr(value)[1]


def digest(items: list[dict[str, Any]], username: str, unsubscribe: str) -> Mail:
    lines = [wrap(ngettext("%(name)s, your Scrapyard digest: %(count)s notice since the last one.",
                           "%(name)s, your Scrapyard digest: %(count)s notices since the last one.", len(items))
                  % {"name": username, "count": len(items)}), ""]
    for item in items:
        lines += ["=" * WIDTH, item["subject"], "=" * WIDTH, item["text"].split("\n-- \n")[0].rstrip("\n"), ""]
        lines += digest_reply_lines(item)
    lines += footer(None, unsubscribe)
    subject = ngettext("Scrapyard digest: %(count)s notice", "Scrapyard digest: %(count)s notices", len(items)) % {"count": len(items)}
    return Mail(subject, "\n".join(lines) + "\n", as_html(lines))


def digest_reply_lines(item: dict[str, Any]) -> list[str]:
    """Where a notice of the digest is answered: its game's reply address, which its footer (cut
    off here) named. A reply to the digest itself goes to the server's address, where a move is
    no command."""
    if not item.get("reply_to") or item.get("game") is None:
        return []
    return [wrap(_("To play in game %(id)s, mail your move (like 1 #17, the guard its notice names) to %(address)s: "
                   "a reply to this digest does not reach the game.") % {"id": item["game"], "address": item["reply_to"]}), ""]


def verify_address(ctx: dict[str, Any]) -> Mail:
    """The one mail an address gets before its owner says it is theirs."""
    lines = [
        wrap(_("Someone (we hope you) gave this address, %(address)s, to the Scrapyard account %(name)s. Until "
               "you confirm it, no mail about games goes to it.") % {"address": ctx["to"], "name": ctx["username"]}),
        "",
        _("To confirm, open this link:"),
        f"  {ctx['link']}",
        "",
        wrap(_("Not you? Ignore this mail: you will get at most one like it a day, and no other.")),
    ]
    return Mail(_("Scrapyard: confirm your address"), "\n".join(lines) + "\n", as_html(lines))


def bounce_notice(ctx: dict[str, Any]) -> Mail:
    lines = [wrap(ctx["said"])]
    return Mail(ctx["subject"], "\n".join(lines) + "\n")


def as_html(lines: list[str]) -> str:
    """The same words as HTML: the board and lists kept monospace, links clickable."""
    body = LINK.sub(lambda found: f'<a href="{found[0]}">{found[0]}</a>', html.escape("\n".join(lines)))
    return (
        f'<!doctype html><html lang="{translation.get_language() or "en"}"><body style="background:#fff;color:#111">'
        f'<pre style="font-family:Menlo,Consolas,monospace;font-size:13px;line-height:1.35">{body}</pre>'
        "</body></html>"
    )
