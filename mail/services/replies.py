"""Mail in, replies: the address's token names the seat, the From must be the account's own
address too, and the first line that is not a quote is the command. Every reply gets an answer."""

from __future__ import annotations

import re
import textwrap
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from accounts import selectors as account_selectors
from accounts import services as account_services
from apikit import errors as apikit_errors
from chat import services as chat_services
from competition import selectors as competition_selectors
from competition import tournament_service
from games import errors, selectors, services, words
from mail import compose, conditionals, reply_text
from mail.language import speaking
from mail.models import Inbound, Outgoing, Preference, SeatAddress
from mail.services.addresses import PLAY_ADDRESS, proven_address, unsubscribe_url
from mail.services.outbound import ANSWER, PROVEN_ANSWER, outgoing_make, seat_context
from mail.services.preferences import preference_of
from mail.services.sending import clean_header
from rules import presentation
from rules.errors import MalformedMove, NotYourTurn, RulesError
from rules.words import msg


def reply_handle(inbound: Inbound, message: Any) -> tuple[str, str]:
    play = PLAY_ADDRESS.match(inbound.recipient)
    address = SeatAddress.objects.filter(token=play[1].lower()).first() if play else None
    if address is None:
        from mail.services import rotation  # rotation makes answers through this module's neighbours

        replaced = rotation.retired(inbound.recipient)
        if replaced is not None:  # replaced (perhaps since the mail came): not read, the owner told
            return rotation.retired_handle(inbound, replaced)
        return "unknown_address", "no seat has this reply address (it may have been replaced)"
    inbound.user_id, inbound.game_id, inbound.seat = address.user_id, address.game_id, address.seat
    account = account_selectors.mail_account(user_id=address.user_id)
    with speaking(account):  # the answer in the account's language
        return _reply_read(inbound, message, address, account)


def _reply_read(inbound: Inbound, message: Any, address: SeatAddress, account: dict) -> tuple[str, str]:
    user = account["user"]
    preference = preference_of(user.pk)
    if not account["email"] or inbound.sender.lower() != account["email"].lower():
        said = _("A mail from %(sender)s to your reply address for game %(id)s was refused: replies must come from "
                 "your account's address, %(address)s.") % {"sender": inbound.sender or _("an unknown sender"),
                                                              "id": address.game_id, "address": account["email"]}
        _answer(inbound, account, preference, "forged_from", said, None)
        return "forged_from", f"the From, {inbound.sender!r}, is not the account's address"
    reply = reply_text.read(body_text(message))
    # Conditional lines are queued all or none, the reply's every line with the first.
    command = reply.conditional() if conditionals.is_conditional(reply.first) else reply.first
    inbound.command = (command or " ".join(f"say {line}" for line in reply.chat))[:300]
    game = selectors.game_get(game_id=address.game_id)
    if selectors.seat_of(game=game, user=user) != address.seat:
        _answer(inbound, account, preference, "not_a_player", _("You no longer have this seat."), None)
        return "not_a_player", "the account no longer has this seat"
    if reply.chat:
        inbound.chat_note = _chat_post(inbound, game, user, reply.chat)
        if not command:
            code = "chatted" if inbound.chat_posted else "chat_refused"
            _answer(inbound, account, preference, code, "", game)
            return code, inbound.chat_note
    return _command_do(inbound, message, account, preference, game, command, reply.actions(), reply.actions_below())


def _chat_post(inbound: Inbound, game: Any, user: Any, lines: list[str]) -> str:
    """The reply's chat lines into the game's chat (`chat.services.chat_post`): what the answer says of them."""
    posted = 0
    inbound.chat_posted = False
    # A line longer than the chat takes goes as several, cut between words: cut short, its end was lost.
    lines = [piece for line in lines for piece in textwrap.wrap(line, chat_services.MAX_LENGTH)]
    try:
        for line in lines:
            chat_services.chat_post(game_id=game.pk, user=user, text=line)
            posted += 1
    except apikit_errors.ServiceError as error:
        return _("Your chat lines were not all posted (%(posted)s of %(all)s, %(code)s): %(why)s") % {
            "posted": posted, "all": len(lines), "code": error.code, "why": words.translated(error.detail)}
    inbound.chat_posted = True
    return ngettext("Your chat line is in game %(id)s's chat; the other players see it in their next mail.",
                    "Your chat lines are in game %(id)s's chat; the other players see them in their next mail.", posted) % {"id": game.pk}


def _command_do(inbound: Inbound, message: Any, account: dict, preference: Preference, game: Any, command: str,
                actions: list[str] | None = None, below: list[str] | None = None) -> tuple[str, str]:
    user = account["user"]
    # The reply words as people end a sentence with them ("Resign.", "Board!"); a move's
    # notation keeps its own punctuation (it is read from `command` and `actions`).
    word = command.lower().strip().rstrip(".!")
    if word in ("", "help", "?"):
        code = "help" if word else "empty"
        summary = selectors.game_summary(game=game)
        mail = compose.help_text({"game_id": game.pk, "unsubscribe": unsubscribe_url(user.pk), "catalogue": selectors.rules_catalogue(),
                                  "subject": f"Re: {compose.thread_subject(summary)}"})
        outgoing_make(user.pk, account["email"], ANSWER, game.pk, None, mail, key=answer_key(inbound), held=False)
        return code, "help sent" if word else "no command found in the reply: help sent"
    if word == "board":
        _answer(inbound, account, preference, "board", _("The board of game %(id)s as it stands:") % {"id": game.pk}, game)
        return "board", "board sent"
    if word in ("vacation on", "vacation off"):
        try:
            account_services.vacation_set(user=user, on=word.endswith("on"))
        except apikit_errors.ServiceError as error:
            _answer(inbound, account, preference, error.code, _("Vacation not changed: %(why)s") % {"why": words.translated(error.detail)}, game)
            return error.code, error.detail
        said = _("Your vacation has started: your clocks are stopped.") if word.endswith("on") else _("Your vacation is over: your clocks run again.")
        _answer(inbound, account, preference, word.replace(" ", "_"), said, game)
        return word.replace(" ", "_"), said
    if word in LIFE_COMMANDS:
        return life_do(inbound, account, preference, game, word)
    bye = BYE.fullmatch(word)
    if bye:
        return bye_do(inbound, account, preference, game, bye)
    if conditionals.is_conditional(command):  # "if 3 then 5; if 4 then 1"
        return conditionals.queue_by_mail(game=game, user=user, command=command,
                                          answer=lambda code, said: _answer(inbound, account, preference, code, said, game))
    return _moves_play(inbound, message, account, preference, game, actions or [command], below or [])


# A reply's words for the game's life (games.services.life), each with the service call and the
# answer's opening words. Several spellings name the same thing: people write "accept draw" too.
LIFE_ACTIONS = [  # (outcome code, service, its arguments, the answer, the words that ask for it)
    ("resigned", "resign", {}, gettext_noop("You resigned game {game}."), ["resign"]),
    ("aborted", "abort", {}, gettext_noop("You aborted game {game}."), ["abort"]),
    ("draw_offered", "draw", {"action": "offer"}, gettext_noop("You offered a draw in game {game}."), ["draw", "draw offer", "offer draw"]),
    ("draw_accepted", "draw", {"action": "accept"}, gettext_noop("You accepted the draw in game {game}."), ["draw accept", "accept draw"]),
    ("draw_declined", "draw", {"action": "decline"}, gettext_noop("You declined the draw in game {game}."), ["draw decline", "decline draw"]),
    ("takeback_requested", "takeback", {"action": "request"}, gettext_noop("You asked to take back your last move in game {game}."),
     ["takeback", "takeback request", "take back"]),
    ("takeback_accepted", "takeback", {"action": "accept"}, gettext_noop("You accepted the takeback in game {game}."),
     ["takeback accept", "accept takeback"]),
    ("takeback_declined", "takeback", {"action": "decline"}, gettext_noop("You declined the takeback in game {game}."),
     ["takeback decline", "decline takeback"]),
    ("seat_returned", "seat_return", {}, gettext_noop("Your seat in game {game} is yours again: you play its moves."),
     ["return", "back"]),
]


LIFE_COMMANDS = {word: (code, call, kwargs, said) for code, call, kwargs, said, words in LIFE_ACTIONS for word in words}


# The outcomes of a reply that did what it asked (any other is a refusal).
DONE_CODES = {"language_set", "played", "chatted", "signup_answered", "registered", "address_confirmed", "password_link",
              "registered_already", "conditional_queued", "board", "help", "vacation_on", "vacation_off", "bounce_hard", "bounce_soft",
              "games", "game_opened", "joined", "seeking", "analysis_queued", "analysis_sent", "address_new",
              "bye_asked", "bye_taken_back",
              *(code for code, *_ in LIFE_ACTIONS)}


def life_do(inbound: Inbound, account: dict, preference: Preference, game: Any, word: str) -> tuple[str, str]:
    code, call, kwargs, said = LIFE_COMMANDS[word]
    try:
        getattr(services, call)(game_id=game.pk, user=account["user"], **kwargs)
    except apikit_errors.ServiceError as error:
        _answer(inbound, account, preference, error.code, _("Not done (%(verb)s): %(why)s") % {"verb": word, "why": words.translated(error.detail)}, game)
        return error.code, error.detail
    fresh = selectors.game_get(game_id=game.pk)
    said = _(said).format(game=game.pk)
    if fresh.status == "finished" and game.status != "finished":
        how = words.translated(presentation.end_words({}, fresh.result))  # the result's reason, worded
        said += " " + _("The game is over: %(how)s.") % {"how": how}
    _answer(inbound, account, preference, code, said, fresh)
    return code, said


# "bye", "bye 3", "bye round 3": sit out a round of the game's tournament for half a point (the
# next round not yet paired unless named); "bye cancel 3" takes it back.
BYE = re.compile(r"bye(?P<cancel>\s+(?:cancel|off))?(?:\s+(?:round\s+)?(?P<round>\d{1,3}))?")


def bye_do(inbound: Inbound, account: dict, preference: Preference, game: Any, asked: re.Match) -> tuple[str, str]:
    """A half-point bye asked for (or taken back) by a reply in a tournament's game, as the
    tournament's page asks (`competition.tournament_service.tournament_bye_ask`)."""
    tournament = competition_selectors.tournament_of_game(game_id=game.pk)
    if tournament is None:
        said = _("Game %(id)s is not a tournament's game: a half-point bye is asked for in a reply to one.") % {"id": game.pk}
        _answer(inbound, account, preference, "not_a_tournament_game", said, game)
        return "not_a_tournament_game", "bye in a game of no tournament"
    number = int(asked["round"]) if asked["round"] else tournament["current_round"] + 1
    call = tournament_service.tournament_bye_take_back if asked["cancel"] else tournament_service.tournament_bye_ask
    try:
        call(user=account["user"], tournament_id=tournament["id"], round_number=number)
    except apikit_errors.ServiceError as error:
        _answer(inbound, account, preference, error.code, _("Not done (%(verb)s): %(why)s") % {"verb": "bye", "why": words.translated(error.detail)}, game)
        return error.code, error.detail
    values = {"round": number, "name": tournament["name"]}
    if asked["cancel"]:
        code, said = "bye_taken_back", _("You play round %(round)s of the tournament %(name)s after all.") % values
    else:
        code, said = "bye_asked", _("You sit out round %(round)s of the tournament %(name)s, for half a point: you will "
                                   "not be paired in it (bye cancel %(round)s takes it back before it is paired).") % values
    _answer(inbound, account, preference, code, said, game)
    return code, said


GUARD = re.compile(r"^(?P<move>.*?)\s*(?:#\s*(?P<seq>\d+))?\s*$")


def _moves_play(inbound: Inbound, message: Any, account: dict, preference: Preference, game: Any,
                specs: list[str], below: list[str]) -> tuple[str, str]:
    """The reply's moves in order, each a move of its own through the move service (a turn of
    several actions in one reply): the first refusal stops the rest, and the answer says which
    were played and why the rest were not. The lines `below` the reply's block of actions
    (`reply_text`) follow them while each is a move (`_written_as_move`); the first that is not
    ends the moves: from there on the reply is the writer's own words, not read."""
    user = account["user"]
    first = GUARD.match(specs[0])
    guard = int(first["seq"]) if first["seq"] else _replied_seq(message, user.pk, game.pk)
    if guard is None:  # no #seq and not a reply to one of our mails: which position it meant is unknown
        spec = first["move"].strip()
        said = _("Your move %(move)r was not played: reply to the mail that asks for your move, or end the line with "
                 "the guard it names (like %(move)s #%(seq)s), so a mail sent twice or late is never played in another "
                 "position.") % {"move": spec, "seq": game.seq}
        _answer(inbound, account, preference, "no_guard", said, game)
        return "no_guard", "no #seq and no In-Reply-To naming one of our mails"
    played: list[str] = []
    unread = None
    for index, written in enumerate([*specs, *below]):
        if index >= len(specs) and not _written_as_move(game, user, written):
            unread = written
            break  # a greeting, a name: the player's words to a person
        parts = GUARD.match(written)
        spec = parts["move"].strip()
        if index and parts["seq"]:
            guard = int(parts["seq"])
        try:
            event_seq = _move_one(inbound, game, user, spec, guard, index)
        except (apikit_errors.ServiceError, RulesError) as error:
            code = error.code
            detail = error.detail if isinstance(error, apikit_errors.ServiceError) else error.message
            fresh = selectors.game_get(game_id=game.pk)
            said = _played_words(game.pk, played)
            said += _("Your move %(move)r was not played (%(code)s): %(why)s") % {"move": spec, "code": code, "why": _sentence(words.translated(detail))}
            if index + 1 < len(specs):  # not the lines below the block: perhaps no moves
                left = len(specs) - index - 1
                said += " " + ngettext("The move after it was not tried.", "The %(count)s moves after it were not tried.", left) % {"count": left}
            _answer(inbound, account, preference, code, said, fresh)
            return code, detail
        game = selectors.game_get(game_id=game.pk)
        played.append(_move_played(game, user, event_seq, spec))
        guard = game.seq  # the next action of the turn is played in the position this one made
    said = _played_words(game.pk, played).strip()
    if unread is not None and selectors.legal_moves_for(game=game, user=user)["moves"]:
        # Still this seat's turn: the line may be a move mistyped rather than a greeting, so the
        # answer names it (after a finished turn a line the game does not read is surely words).
        said += " " + _("%(line)r was not read as a move, nor anything below it: write each move of a turn as the list "
                        "names it, and it is still your turn.") % {"line": unread}
    _answer(inbound, account, preference, "played", said, game)
    return "played", "; ".join(played)[:500]


def _written_as_move(game: Any, user: Any, written: str) -> bool:
    """Whether a line below a reply's actions is a move: written in the mail's own notation (a
    number of the list, or with a guard: "1 #12"), or read by the game as one of the seat's moves
    now. A line the game does not read is, there, a person's words ("Succes!", "Bob") more
    likely than a move mistyped, and refusing the reply for it told of a move never meant."""
    parts = GUARD.match(written)
    spec = parts["move"].strip()
    if parts["seq"] or LISTED_NUMBER.fullmatch(spec):
        return True
    try:
        _move_named(game, user, spec)  # as it is played: a line copied from the list is a move too
    except (apikit_errors.ServiceError, RulesError):
        return False
    return True


def _move_one(inbound: Inbound, game: Any, user: Any, spec: str, guard: int, index: int) -> int:
    """One move of the reply, checked against the position `guard` names; returns its seq."""
    # Refused before the move is read from the list, in the reply's own words; whether the reply
    # still means what it meant is the service's rule (`move_submit`), asked of the same selector.
    if guard != game.seq and not selectors.moves_unchanged_since(game=game, user=user, since=guard):
        raise errors.StaleSeq(msg("your reply is to the position of move {guard}, but the game is at move {seq} now", guard=guard, seq=game.seq))
    move = _move_named(game, user, spec)
    # The first move keeps the key a one-move reply always had: a reply read twice plays nothing twice.
    key = f"mail-{inbound.pk}" if index == 0 else f"mail-{inbound.pk}-{index}"
    submitted = services.move_submit(game_id=game.pk, user=user, move=move, expected_seq=guard, idempotency_key=key)
    return submitted.event.seq


def _move_played(game: Any, user: Any, event_seq: int, spec: str) -> str:
    """The move a reply played, in the reader's words with its notation beside them where they
    read otherwise, and its place in the log: "vuur klein (fire small) (zet 5)"."""
    event = next((e for e in selectors.events_visible(game=game, user=user, after=event_seq - 1, notation=True)
                  if e["seq"] == event_seq), None)
    told = compose.told_with_notation(event["text"], event["notation"]) if event else spec
    return told + " " + _("(move %(seq)s)") % {"seq": event_seq}


def _played_words(game_id: int, played: list[str]) -> str:
    if not played:
        return ""
    return _("Played in game %(id)s: %(moves)s.") % {"id": game_id, "moves": ", ".join(played)} + " "



def _move_named(game: Any, user: Any, spec: str) -> dict[str, Any]:
    numeral = LISTED_NUMBER.fullmatch(spec)  # "2", or "2." as the list writes it (or "2)")
    if numeral:
        listed = selectors.legal_moves_for(game=game, user=user)
        number = int(numeral[1])
        if not listed["moves"]:
            raise NotYourTurn(msg("it is not your turn: you have no moves now"))
        if not 1 <= number <= len(listed["moves"]):
            raise errors.InvalidInput(msg("there is no move numbered {number}: the list runs from 1 to {moves_count}", number=number, moves_count=len(listed['moves'])))
        return listed["moves"][number - 1]
    try:
        return selectors.move_read(game=game, user=user, text=spec)
    except MalformedMove:
        if not selectors.legal_moves_for(game=game, user=user)["moves"]:
            # A move in notation off turn is refused as a number is, not as a notation that
            # reads as no move ("legal moves: none").
            raise NotYourTurn(msg("it is not your turn: you have no moves now")) from None
        copied = _notation_of_listed_line(spec)
        if copied == spec:
            raise
        return selectors.move_read(game=game, user=user, text=copied)


LISTED_NUMBER = re.compile(r"(\d{1,6})[.)]?")
# A whole line copied from a mail's list of moves: its number, the notation, and the move in the
# reader's words in brackets ("3. fire small  (vuur klein)"). The notation is what names the move.
LIST_NUMBER = re.compile(r"\d{1,4}\.\s")


def _notation_of_listed_line(spec: str) -> str:
    """The notation in such a line (read without a pattern that could backtrack on a long line)."""
    text = spec.strip()
    numbered = LIST_NUMBER.match(text)
    if numbered:
        text = text[numbered.end():].strip()
    if text.endswith(")"):
        opened = text.rfind("(")
        if opened > 0 and ")" not in text[opened:-1]:
            text = text[:opened].strip()
    return text or spec


def _replied_seq(message: Any, user_id: int, game_id: int) -> int | None:
    """The seq of our mail this one answers (In-Reply-To, else the last of References that names
    one), if it is one of the account's."""
    try:
        named = clean_header(message.get("In-Reply-To", "")).split() + clean_header(message.get("References", "")).split()[::-1]
    except Exception:  # an unreadable header names nothing
        return None
    if not named:
        return None
    found = dict(Outgoing.objects.filter(message_id__in=named[:50], user_id=user_id, game_id=game_id, seq__isnull=False)
                 .values_list("message_id", "seq"))
    return next((found[name] for name in named if name in found), None)


def answer_key(inbound: Inbound) -> str:
    """The answer's key: once per mail in; marked when that mail proved its account (a reply
    address, a command address), whose answers keep out of the strangers' hourly limit."""
    key = f"{inbound.user_id}:{inbound.game_id}:inbound{inbound.pk}:{ANSWER}"
    return key + PROVEN_ANSWER if proven_address(inbound.recipient) else key


def _answer(inbound: Inbound, account: dict, preference: Preference, code: str, said: str, game: Any) -> None:
    """The answer to a reply, always sent at once (a digest would hide it), with the game as the
    seat sees it now and, if it is the seat's turn, its legal moves."""
    user = account["user"]
    context = seat_context(user, game, preference) if game is not None else {"unsubscribe": unsubscribe_url(user.pk)}
    if game is not None:  # the game's own thread, whatever the reply's subject became
        subject = compose.thread_subject(context["game"])
    else:
        subject = clean_header(inbound.subject or f"game {inbound.game_id}")
    note = getattr(inbound, "chat_note", "")  # what became of the reply's chat lines, said with the rest
    said = " ".join(part for part in (said, note) if part)
    context.update(said=said, subject=subject if subject.lower().startswith("re:") else f"Re: {subject}")
    mail = compose.answer(context)
    # The answer carries the seq it shows: a reply to it is played against that position.
    outgoing_make(user.pk, account["email"], ANSWER, inbound.game_id, game.seq if game is not None else None, mail,
                   context.get("reply_to", ""), key=answer_key(inbound), held=False)


QUOTE_INTRO = reply_text.QUOTE_INTRO  # one reading of where a quote starts, for replies and commands alike


def body_text(message: Any) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    content = _decoded(part)
    if part.get_content_type() == "text/html":
        content = reply_text.html_text(content)
    elif str(part.get_param("format", "")).lower() == "flowed":
        content = reply_text.unflowed(content, delsp=str(part.get_param("delsp", "")).lower() == "yes")
    return content


def _decoded(part: Any) -> str:
    """A part's text in its charset; in UTF-8 (what most mail is) when the charset is one
    Python does not know ("unknown-8bit") or, on 8-bit text, none at all (read as ASCII then)."""
    try:
        content = part.get_content()
    except (LookupError, UnicodeDecodeError):
        content = None
    if content is None or ("\ufffd" in content and part.get_param("charset") is None):
        content = (part.get_payload(decode=True) or b"").decode("utf-8", "replace")
    return content


def first_command(text: str) -> str:
    """The first line that is not empty, not a quote, not a quote's introduction and not a
    signature, read as a reply's actions are (a command written below the quote is found)."""
    return reply_text.read(text).first


def _sentence(text: str) -> str:
    """A refusal's words ended as a sentence, so the next sentence does not run on from it."""
    text = str(text).rstrip()
    return text if not text or text[-1] in ".!?" else f"{text}."
