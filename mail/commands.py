"""Commands by mail to the server's own address (the From of every mail): a player who knows no
reply address yet opens, joins, seeks and lists games by mail, and each command gets an answer.

Only mail from an account's confirmed address is read as a command; mail from any other address
is a newcomer's (`mail.signup`): it gets one answer a day at most, to that address, saying how to
join, and nothing else is done (a forged From brings its real owner that one answer). A command
that changes something (new, join, seek, resign, draw, takeback, analysis, language) is done only
when the mail proves its sender: sent to the account's command address, or with its From proven
by DKIM or SPF at the gateway (`mail.authentication`); otherwise the answer, which goes to the
account's own address, asks for it there. Anyone can write a player's From. A game the
sender may not see is answered exactly as a game that does not exist. Every answer's Reply-To is
the account's own command address (`me+<account>-<mac>@`): commands sent there are read the same,
but on the players' path, so a flood forging the account's From delays none of them.

    help                              the commands, with examples
    games                             your games, whose turn it is, and each one's reply address
    new <game> [players N] [days D | step S] [key=value ...]
                                      open a game; the answer says how others join
    join <id>                         take a seat in an open game
    seek <game> [players N] [days D | step S]
                                      be paired with players wanting the same (as in the lobby)
    resign <id>, draw <id>, takeback <id>
                                      as the same words in a reply to the game's mail
    analysis <id>                     a finished game's analysis, mailed when it is done
    language nl | en (taal nl | en)   mail and pages in Dutch or English
    new address (nieuw adres)         a new command address and new reply addresses for every
                                      game, when one leaked; the old ones are no longer read
"""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts import selectors as account_selectors
from accounts import services as account_services
from apikit import errors as apikit_errors
from games import errors, selectors, text_board
from games import services as game_services
from games import words as rules_words
from mail import compose
from mail.language import speaking
from mail.models import Inbound

# Its parts, not the package: the package holds inbound, which calls the commands.
from mail.services import addresses, outbound, preferences, replies, rotation, sending
from rules.errors import RulesError

WORD = re.compile(r"[a-z_]+")
NO_SUCH_GAME = gettext_noop("There is no game %(id)s that you can see: check its number (the answer to games lists yours).")


def handle(inbound: Inbound, message: Any, proven: int | None = None) -> tuple[str, str]:
    """Read one mail to the server's address, or to the account `proven` by its command address;
    returns (outcome code, detail)."""
    ids = account_selectors.accounts_with_email(email=inbound.sender) if inbound.sender else []
    if proven is not None:  # the address names the account; its From must be that account's too
        ids = [user_id for user_id in ids if user_id == proven]
    user_id = next((user_id for user_id in ids if preferences.address_verified(user_id, inbound.sender)), None)
    command = replies.first_command(replies.body_text(message)) or _subject_command(inbound.subject)
    if user_id is None and proven is not None:  # an account's command address, from another From
        inbound.command = command[:300]
        return "wrong_sender", "the command address of another account than the From's"
    if user_id is None:  # not (yet) a player's address: how to join, once a day at most
        from mail import signup

        inbound.command = command[:300]
        return signup.unknown_sender(inbound, message, command)
    inbound.user_id = user_id
    account = account_selectors.mail_account(user_id=user_id)
    inbound.command = command[:300]
    with speaking(account):  # the answer in the account's language
        if not (proven is not None or inbound.sender_proven) and _changes_something(command):
            return _proof_asked(inbound, account, command)
        return _command_do(inbound, account, command)


# Commands that only read (their answer goes to the account's own address, whoever wrote).
READ_ONLY = frozenset({"help", "?", "games", "board", "password", "register"})


def _changes_something(command: str) -> bool:
    words = command.lower().split()
    return bool(words) and words[0] in COMMANDS and words[0] not in READ_ONLY


def _proof_asked(inbound: Inbound, account: dict, command: str) -> tuple[str, str]:
    """A command that would change something, in mail to the server's address whose From
    nothing proves (no token in the address, no DKIM or SPF pass: `mail.gateway`): anyone can
    write that From. Not done; the answer, which goes to the account's own address, says to send
    it to the account's command address (this answer's Reply-To), which only that mailbox knows."""
    own = addresses.command_address(account["user"].pk)
    _say(inbound, account, [
        _("Not done (%(command)s): nothing proves this mail came from your mailbox, and anyone can "
          "write your address as its From.") % {"command": command[:60]},
        "",
        _("If you sent it, reply to this mail with the same line (it goes to your own command "
          "address, %(address)s, which only your mailbox knows); mail sent there is done at once.")
        % {"address": own},
    ])
    return "unproven_sender", "a command that changes something, from a From nothing proves"


def _command_do(inbound: Inbound, account: dict, command: str) -> tuple[str, str]:
    words = command.lower().rstrip(".!").split()  # "Games." as people end a sentence
    verb = words[0] if words else "help"
    handler = COMMANDS.get(verb)
    if handler is None:
        _say(inbound, account, [_("The server did not understand %(command)r.") % {"command": command[:60]}, ""]
             + compose.server_help_lines(selectors.rules_catalogue()))
        return "unknown_command", f"not a command: {command[:100]!r}"
    try:
        return handler(inbound, account, words[1:])
    except (apikit_errors.ServiceError, RulesError) as error:
        detail = error.detail if isinstance(error, apikit_errors.ServiceError) else error.message
        _say(inbound, account, [_("Not done (%(verb)s): %(why)s") % {"verb": verb, "why": rules_words.translated(detail)}])
        return error.code, detail


def _help_lines() -> list[str]:
    return compose.full_help_lines(selectors.rules_catalogue())


def _subject_command(subject: str) -> str:
    """Some people write the command as the subject, with an empty body; a reply's subject
    carries its program's prefixes, one or more (Re: RE:, the Dutch Antw:, AW:, SV:)."""
    return REPLY_PREFIXES.sub("", subject or "").strip()


REPLY_PREFIXES = re.compile(r"^((re|fwd?|fw|aw|antw|wg|sv|vs|tr)\s*:\s*)+", re.IGNORECASE)


def _say(inbound: Inbound, account: dict, lines: list[str], game_id: int | None = None) -> None:
    user = account["user"]
    body = [_fitted(line) for line in lines]
    body += compose.footer(game_id, addresses.unsubscribe_url(user.pk), addresses.command_address(user.pk))
    subject = sending.clean_header(inbound.subject) or _("your mail")
    mail = compose.Mail(subject if subject.lower().startswith("re:") else f"Re: {subject}"[:200],
                        "\n".join(body) + "\n", compose.as_html(body))
    outbound.outgoing_make(user.pk, account["email"], outbound.ANSWER, None, None, mail,
                           addresses.command_address(user.pk), key=replies.answer_key(inbound), held=False)


def _fitted(element: str) -> str:
    """An answer's element within WIDTH columns: a single line of prose is wrapped (under its own
    indent); a block of several lines (a board, the help, a list) was laid out to fit by whoever
    made it, and wrapping it again would run its lines together into one paragraph."""
    if "\n" in element or len(element) <= compose.WIDTH:
        return element
    return compose.wrap(element, element[:len(element) - len(element.lstrip())])


def _help(inbound: Inbound, account: dict, words: list[str]) -> tuple[str, str]:
    _say(inbound, account, _help_lines())
    return "help", "help sent"


def _games(inbound: Inbound, account: dict, words: list[str]) -> tuple[str, str]:
    if words[:1] == ["open"]:
        return _games_open(inbound, account)
    user = account["user"]
    games = selectors.account_games(user=user)
    if not games:
        lines = [_("You have no open or active games. Open one with: new scavenge"),
                 _("or ask to be paired with: seek scavenge")]
    else:
        lines = [_("Your games (%(count)s):") % {"count": len(games)}, ""]
        for game in games:
            turn = (_("your turn") if game["seat"] in game["to_act"] else _("waiting for another player")) \
                if game["status"] == "active" else _("waiting for players to join")
            lines.append(f"  {game['game']}  {game['rules']}: {turn}")
            if game["seat"] is not None:
                lines.append("      " + _("reply to: %(address)s") % {"address": addresses.reply_address(user.pk, game["game"], game["seat"])})
    _say(inbound, account, lines)
    return "games", f"{len(games)} game(s) listed"


OPEN_LISTED = 30


def _games_open(inbound: Inbound, account: dict) -> tuple[str, str]:
    """The games waiting for players (as the lobby lists them) and the open seeks, each with the
    line that joins it."""
    from competition import selectors as competition  # the lobby's seeks, as the lobby reads them

    user = account["user"]
    games = list(selectors.game_list(user=user, status="open").order_by("-pk")[:OPEN_LISTED])
    lines = [_("Games waiting for players (%(count)s):") % {"count": f"{len(games)}{'+' if len(games) == OPEN_LISTED else ''}"}]
    for game in games:
        seats = selectors.seats_of(game=game)
        taken = [compose.player_name(seat) for seat in seats if seat["username"] or seat["bot"]]
        lines.append(compose.wrap(f"  {game.pk}  " + _("%(game)s, %(taken)s of %(seats)s seats taken (%(who)s)%(clock)s: join %(id)s") % {
            "game": game.rules, "taken": len(taken), "seats": game.players, "who": ", ".join(taken) or _("none"),
            "clock": _clock_words(game.time_control), "id": game.pk}, " " * 6))
    if not games:
        lines.append("  " + _("none now. Open one with: new <game> (see help)"))
    seeks = [seek for seek in competition.seek_list(user=user, mine=False) if seek["username"] != user.username]
    lines += ["", _("Players looking for a game (%(count)s):") % {"count": len(seeks)}]
    for seek in seeks[:OPEN_LISTED]:
        lines.append(compose.wrap(f"  {seek['username']}: " + _("%(game)s, %(players)s players%(clock)s%(rated)s") % {
            "game": seek["rules"], "players": seek["players"], "clock": _clock_words(seek["time_control"]),
            "rated": ", " + _("rated") if seek["rated"] else ""} + f": seek {seek['rules']} players {seek['players']}", " " * 6))
    if not seeks:
        lines.append("  " + _("none now. Be the first with: seek <game>"))
    _say(inbound, account, lines)
    return "games", f"{len(games)} open game(s), {len(seeks)} seek(s) listed"


def _clock_words(control: dict | None) -> str:
    control = control or {}
    if control.get("type") == "correspondence":
        return ", " + _("%(days)s days a move") % {"days": control.get("days")}
    if control.get("type") == "step":
        return ", " + _("%(seconds)s s a move") % {"seconds": control.get("seconds")}
    return ""


def _visible_game_id(account: dict, words: list[str]) -> int | None:
    """The game the words name, if the sender may see it."""
    game_id = _game_id(words)
    if game_id is None or not selectors.game_list(user=account["user"]).filter(pk=game_id).exists():
        return None
    return game_id


def _no_such_game(inbound: Inbound, account: dict, words: list[str]) -> tuple[str, str]:
    _say(inbound, account, [_(NO_SUCH_GAME) % {"id": words[0] if words else "?"}])
    return "game_not_found", "no such game, or not one the sender may see"


def _board(inbound: Inbound, account: dict, words: list[str]) -> tuple[str, str]:
    """A game's board as the sender may see it (a player's own seat, else as a spectator)."""
    game_id = _visible_game_id(account, words)
    user = account["user"]
    if game_id is None:
        return _no_such_game(inbound, account, words)
    game = selectors.game_get(game_id=game_id)
    inbound.game_id = game_id
    summary = selectors.game_summary(game=game)
    lines = [compose.wrap(_("The board of %(game)s at move %(seq)s (%(status)s):") % {
        "game": compose.title(summary), "seq": game.seq, "status": compose.status_word(game.status)}), "",
             text_board.board_and_panels(game=game, user=user).rstrip("\n")]
    _say(inbound, account, lines, game_id)
    return "board", f"board of game {game_id} sent"


def _password(inbound: Inbound, account: dict, words: list[str]) -> tuple[str, str]:
    from mail import signup

    _say(inbound, account, [_("To set a password for the web (mail goes on as it is), open:"), f"  {signup.password_url(account['user'])}"])
    return "password_link", "password link sent"


def _register(inbound: Inbound, account: dict, words: list[str]) -> tuple[str, str]:
    _say(inbound, account, [compose.wrap(_("This address already belongs to the account %(name)s: mail help for what you can do.")
                                         % {"name": account["username"]})])
    return "registered_already", "the address has an account"


def _settings_of(words: list[str]) -> tuple[str, int, dict, dict | None]:
    """`<game> [players N] [days D | step S] [key=value ...]` as (rules, players, options, clock)."""
    if not words:
        raise errors.InvalidInput(_("name the game, like: new scavenge"))
    rules_id, players, options, clock = words[0], 2, {}, None
    rest = iter(words[1:])
    for word in rest:
        if word in ("players", "days", "step"):
            number = next(rest, "")
            if not number.rstrip("s").isdecimal():  # isdigit takes "²", which int() refuses
                raise errors.InvalidInput(_("%(word)s takes a number, like: %(word)s 3") % {"word": word})
            value = int(number.rstrip("s"))
            if word == "players":
                players = value
            elif word == "days":
                clock = {"type": "correspondence", "days": value}
            else:
                clock = {"type": "step", "seconds": value}
        elif "=" in word:
            key, _equals, value = word.partition("=")
            options[key] = int(value) if value.isdecimal() else {"true": True, "false": False}.get(value, value)
        else:
            raise errors.InvalidInput(_("%(word)r is not a setting of new: see help") % {"word": word})
    return rules_id, players, options, clock


def _new(inbound: Inbound, account: dict, words: list[str]) -> tuple[str, str]:
    if words in (["address"], ["addresses"]):
        return _address_new(inbound, account)
    rules_id, players, options, clock = _settings_of(words)
    game = game_services.game_create(creator=account["user"], rules_id=rules_id, players=players, options=options,
                                     time_control=clock)
    lines = [_("Game %(id)s (%(game)s, %(players)s players) is open. It starts when every seat is taken.")
             % {"id": game.pk, "game": rules_id, "players": players},
             "",
             _("Others join by mailing this line to %(address)s:") % {"address": addresses.server_address()},
             f"  join {game.pk}",
             _("or on the web: %(url)s") % {"url": compose.game_url(game.pk)}]
    _say(inbound, account, lines, game.pk)
    return "game_opened", f"game {game.pk} opened"


def _join(inbound: Inbound, account: dict, words: list[str]) -> tuple[str, str]:
    game_id = _visible_game_id(account, words)
    user = account["user"]
    if game_id is None:
        return _no_such_game(inbound, account, words)
    seat = game_services.game_join(game_id=game_id, user=user)
    game = selectors.game_get(game_id=game_id)
    lines = [_("You have seat %(seat)s in game %(id)s.") % {"seat": seat.index, "id": game_id}]
    lines.append(_("The game has started: mails about it come from now on.") if game.status == "active"
                 else _("It starts when every seat is taken; a mail will say so."))
    _say(inbound, account, lines, game_id)
    return "joined", f"seat {seat.index} in game {game_id}"


def _seek(inbound: Inbound, account: dict, words: list[str]) -> tuple[str, str]:
    from competition import pairing  # competition's public seek, as the lobby's

    rules_id, players, options, clock = _settings_of(words)
    seek = pairing.seek_create(user=account["user"], rules_id=rules_id, players=players, options=options or None,
                               time_control=clock or {"type": "correspondence", "days": 3}, rated=False,
                               expires_in=pairing.MAX_EXPIRES_IN)
    _say(inbound, account, [_("You are looking for a game of %(game)s (%(players)s players). When you are paired, "
                              "a mail says the game has started; the seek lasts a week.") % {"game": rules_id, "players": players}])
    return "seeking", f"seek {seek.pk}"


def _life(inbound: Inbound, account: dict, words: list[str], verb: str) -> tuple[str, str]:
    game_id = _visible_game_id(account, words)
    user = account["user"]
    if game_id is None:
        return _no_such_game(inbound, account, words)
    game = selectors.game_get(game_id=game_id)
    inbound.game_id = game_id
    inbound.seat = selectors.seat_of(game=game, user=user)
    word = " ".join([verb, *words[1:]])
    if word not in replies.LIFE_COMMANDS:
        raise errors.InvalidInput(_("%(word)r is not a command: see help") % {"word": word})
    return replies.life_do(inbound, account, preferences.preference_of(user.pk), game, word)


def _analysis(inbound: Inbound, account: dict, words: list[str]) -> tuple[str, str]:
    from mail import analysis_mail  # the analysis app's door by mail, apart from the commands

    game_id = _game_id(words)
    if game_id is None:
        raise errors.InvalidInput(_("name the game, like: analysis 42"))
    inbound.game_id = game_id
    return analysis_mail.request_by_mail(account=account, game_id=game_id, say=lambda lines: _say(inbound, account, lines, game_id))


def _language(inbound: Inbound, account: dict, words: list[str]) -> tuple[str, str]:
    """`language nl` (or `taal nl`): the account's language for mail and pages; the answer comes
    in the language chosen."""
    chosen = words[0] if words else ""
    choices = dict(settings.LANGUAGES)
    if chosen not in choices:
        _say(inbound, account, [_("Name a language: %(choices)s, like: language nl") % {
            "choices": ", ".join(f"{code} ({name})" for code, name in choices.items())}])
        return "invalid_input", f"not a language: {chosen!r}"
    account_services.account_update(user=account["user"], language=chosen)  # as the account page sets it
    with translation.override(chosen):
        # Translators: said in the language just chosen, so each language names itself here.
        _say(inbound, account, [_("Your mail and pages are in English from now on.")])
    return "language_set", f"language {chosen}"


def _address_new(inbound: Inbound, account: dict) -> tuple[str, str]:
    """`new address` (`nieuw adres`), from proven mail only (`handle`): a new command address and
    new reply addresses for every game (`rotation.addresses_replace`); the answer, which goes to the
    account's own address as every answer does, names the new command address."""
    result = rotation.addresses_replace(user=account["user"], via=rotation.BY_MAIL)
    _say(inbound, account, [line for line in rotation.replaced_note(result) if line])
    return rotation.ADDRESS_NEW, f"addresses replaced ({result['seats']} seat(s))"


def _nieuw(inbound: Inbound, account: dict, words: list[str]) -> tuple[str, str]:
    if words in (["adres"], ["adressen"]):
        return _address_new(inbound, account)
    raise errors.InvalidInput(_("%(word)r is not a command: see help") % {"word": " ".join(["nieuw", *words])[:60]})


def _game_id(words: list[str]) -> int | None:
    return int(words[0].lstrip("#")) if words and words[0].lstrip("#").isdecimal() else None  # not isdigit: "²"


COMMANDS = {
    "help": _help, "?": _help, "games": _games, "board": _board, "password": _password, "register": _register, "new": _new, "join": _join, "seek": _seek,
    "resign": lambda i, a, w: _life(i, a, w, "resign"),
    "draw": lambda i, a, w: _life(i, a, w, "draw"),
    "takeback": lambda i, a, w: _life(i, a, w, "takeback"),
    "analysis": _analysis, "language": _language, "taal": _language, "nieuw": _nieuw,
}
# Outcomes that did what was asked.
DONE = {"address_new", "language_set", "password_link", "registered_already", "help", "games", "game_opened", "joined", "seeking", "analysis_queued", "analysis_sent"}
