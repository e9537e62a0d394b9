"""The game table's words, written on the server so a page reads without JavaScript: the
status line, the seats' panels and the result in words. `static/web/game.js` writes the same
words again as the game moves on (keep the two in step). Nothing here knows a game: it reads the
rules' presentation (`rules.presentation`) and the game's answer."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from markdown_it import MarkdownIt

from games import selectors, words
from games.text_board import mover_name, player_name
from rules.presentation import end_words

GAME_DOCS = Path(__file__).resolve().parent.parent / "docs" / "games"


def title_of(rules_id: str) -> str:
    found = next((entry for entry in selectors.rules_catalogue() if entry["id"] == rules_id), None)
    return found["title"] if found else rules_id


def seats(game: dict[str, Any]) -> list[dict[str, Any]]:
    """Each seat's panel, with who sits there and whether it must act."""
    panels = game["presentation"]["panels"]
    found = []
    taken = {seat["seat"]: seat for seat in game["seats"]}
    for index in range(game["players"]):  # an open seat too: the game lists the seats taken
        seat = taken.get(index, {"seat": index, "username": None, "bot": None})
        shown = panels[index] if index < len(panels) else {"name": _("seat %(seat)s") % {"seat": index}, "colour": "gray", "score": None,
                                                           "score_parts": [], "resources": [], "notes": [], "out": False}
        found.append({**shown, "seat": index, "player": player_name(seat), "bot": seat.get("bot"),
                      "you": index == game["your_seat"], "acting": game["status"] == "active" and index in game["to_act"]})
    return found


def _names(game: dict[str, Any], indices: list[int]) -> str:
    names = [_("you") if index == game["your_seat"] else player_name(game["seats"][index]) for index in indices]
    if len(names) < 2:
        return "".join(names)
    return _("%(some)s and %(last)s") % {"some": ", ".join(names[:-1]), "last": names[-1]}


def result_words(game: dict[str, Any]) -> str:
    """"You won 27-10: the last glacier melted"; scores from the panels when every seat has one,
    the end's words as `rules.presentation.end_words` gives them."""
    result = game["result"] or {}
    winners = result.get("winners", [])
    scores = [panel["score"] for panel in game["presentation"]["panels"]]
    if not scores or any(score is None for score in scores):
        scores = result.get("scores", [])
    order = [*winners, *(seat for seat in range(len(scores)) if seat not in winners)]  # the winner's score first
    shown = [scores[seat] for seat in order if seat < len(scores)]
    # "27-10", but "0 to -1" where a score is negative: "0--1" reads as a typo.
    told = (_(" to ") if min(shown, default=0) < 0 else "-").join(f"{score:g}" for score in shown) if len(scores) > 1 else ""
    reason = words.translated(end_words(game["presentation"], result))
    if not winners:
        head = _("Nobody won")
    elif len(winners) > 1 and len(winners) == len(game["seats"]):
        head = _("A draw")
    elif game["your_seat"] in winners:
        head = _("You won") if len(winners) == 1 else _("You shared the win with %(names)s") % {
            "names": _names(game, [w for w in winners if w != game["your_seat"]])}
    else:
        head = _("%(names)s won") % {"names": _names(game, winners)}
    return f"{head} {told}: {reason}".replace("  ", " ") if told else f"{head}: {reason}"


def status_line(game: dict[str, Any]) -> str:
    if game["status"] == "finished":
        return result_words(game)
    if game["status"] == "open":
        open_seats = game["players"] - sum(1 for seat in game["seats"] if seat.get("username") or seat.get("bot"))
        return ngettext("Waiting for %(count)s more player to join", "Waiting for %(count)s more players to join",
                        open_seats) % {"count": open_seats}
    prompt = game["presentation"]["prompt"]
    others = [seat for seat in game["to_act"] if seat != game["your_seat"]]
    if prompt:
        return prompt if not others else _("%(prompt)s (%(names)s must move too)") % {"prompt": prompt, "names": _names(game, others)}
    return _("%(names)s must move") % {"names": _names(game, others)} if others else _("Waiting")


def log_lines(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each event with the name shown before its words (`mover_name`): a move's player as the log
    names them then."""
    return [{**event, "who": mover_name(event)} for event in events]


def how_to_play(rules_id: str) -> str:
    """The game's own page (docs/games/<id>.md), or its guide in the reader's language beside it
    (docs/games/nl/<id>.md), as HTML; its raw HTML is not passed through."""
    return _page_as_html(rules_id, translation.get_language() or "en")


@cache
def _page_as_html(rules_id: str, language: str) -> str:
    guide = GAME_DOCS / language / f"{rules_id}.md"
    text = guide.read_text() if guide.exists() else selectors.rules_detail(rules_id=rules_id).get("doc")
    return MarkdownIt("commonmark", {"html": False}).render(text) if text else ""
