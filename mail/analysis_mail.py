"""The analysis of a finished game by mail: `analysis <id>` to the server's address asks for it
(`analysis.services`), and once it is done a mail in the game's own thread lists the marked
moves, with a link to the game page's graph. Sent once per (account, game): the outgoing mail's key; the analysis app's
sweep signals again while such a mail is owed."""

from __future__ import annotations

from typing import Any, Callable

from django.utils.formats import number_format
from django.utils.translation import gettext as _

from accounts import selectors as account_selectors
from analysis import selectors as analysis_selectors
from analysis import services as analysis_services
from games import selectors
from mail import compose
from mail.language import speaking

# Its parts, not the package: the package holds inbound, which calls the commands.
from mail.services import addresses, outbound

KIND = "analysis"
SIGNS = {"mistake": "??", "inaccuracy": "?!"}
MARK_WORDS = {"mistake": lambda: _("mistake"), "inaccuracy": lambda: _("inaccuracy")}


def request_by_mail(*, account: dict, game_id: int, say: Callable[[list[str]], None]) -> tuple[str, str]:
    """Ask for the game's analysis for the sender; a done one is mailed at once."""
    analysis = analysis_services.analysis_request(game_id=game_id, user=account["user"], by_mail=True)
    if analysis.status == "done":
        mail_owed(game_id=game_id)
        return "analysis_sent", f"game {game_id}'s analysis mailed"
    say([_("The analysis of game {game} is queued: a bot looks at every move, from what each player saw "
           "then. A mail with the marked moves follows when it is done.").format(game=game_id)])
    return "analysis_queued", f"game {game_id}'s analysis queued"


def analysis_done(sender: Any, *, game_id: int, **kwargs: Any) -> None:
    mail_owed(game_id=game_id)


def mail_owed(*, game_id: int) -> int:
    """Mail the done analysis to each who asked for it by mail and has not had it; how many."""
    owed = analysis_selectors.mail_owed(game_id=game_id)
    if not owed:
        return 0
    game = selectors.game_get(game_id=game_id)
    seats, summary = selectors.seats_of(game=game), selectors.game_summary(game=game)
    made = 0
    for request in owed:
        account = account_selectors.mail_account(user_id=request["user"])
        if account and account["email"]:
            with speaking(account):  # the recipient's language: the answer's own words (seen_from) too
                answer = analysis_selectors.analysis_done_of(game_id=game_id)
                names = {seat["seat"]: seat["username"] or _("a bot") for seat in seats}
                mail = _mail(summary, answer, names, request["user"])
            made += outbound.outgoing_make(request["user"], account["email"], KIND, game_id, None, mail,
                                            addresses.server_address(), key=f"{KIND}:{game_id}:{request['user']}",
                                            held=False)
        analysis_services.request_mailed(request_id=request["request"])
    return made


def marked_lines(answer: dict[str, Any], names: dict[int, str]) -> list[str]:
    lines = []
    for move in answer["moves"]:
        if move["mark"]:
            said = _("{sign} {mark}, {before} -> {after}; the bot preferred {preferred}").format(
                sign=SIGNS[move["mark"]], mark=MARK_WORDS[move["mark"]](), before=number_format(move["before"], 2),
                after=number_format(move["after"], 2),
                preferred=compose.with_words(move["preferred_text"], move.get("preferred_words")))
            played = compose.with_words(move["text"], move.get("words"))  # what a reply types, then the reader's words
            lines.append(f"  {move['seq']:>4}  {names.get(move['seat'], move['seat'])}: {played}  {said}")
    return lines


def _mail(game: dict[str, Any], answer: dict[str, Any], names: dict[int, str], user_id: int) -> compose.Mail:
    """In the game's own thread (its subject, and `mail.threads` its References), what it is on
    the body's first line, as every mail of the game."""
    game_id, marked = game["id"], marked_lines(answer, names)
    body = [_("Analysis of game {game}").format(game=game_id), "",
            compose.wrap(_("The analysis of game {game} is done: {moves} moves, {marked} marked "
                           "(?? a mistake: the mover's winning chances fell by a quarter or more; ?! an inaccuracy: "
                           "by an eighth).").format(game=game_id, moves=len(answer["moves"]), marked=len(marked))),
            "", compose.wrap(answer["seen_from"]), ""]
    body += [compose.wrap(line, " " * 8) for line in marked] or [_("No move was marked.")]
    body += ["", _("The graph and every move: {url}").format(url=compose.game_url(game_id))]
    body += compose.footer(game_id, addresses.unsubscribe_url(user_id), "")
    return compose.Mail(compose.thread_subject(game), "\n".join(body) + "\n", compose.as_html(body))
