"""The game table's words, written on the server so a page reads without JavaScript: the
status line, the seats' panels and the result in words. `static/web/game.js` writes the same
words again as the game moves on (keep the two in step). Nothing here knows a game: it reads the
rules' presentation (`rules.presentation`) and the game's answer."""

from __future__ import annotations

from functools import cache
from typing import Any

from markdown_it import MarkdownIt

from games import selectors
from games.text_board import player_name
from rules.presentation import end_words


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
        shown = panels[index] if index < len(panels) else {"name": f"seat {index}", "colour": "gray", "score": None,
                                                           "score_parts": [], "resources": [], "notes": [], "out": False}
        found.append({**shown, "seat": index, "player": player_name(seat), "bot": seat.get("bot"),
                      "you": index == game["your_seat"], "acting": game["status"] == "active" and index in game["to_act"]})
    return found


def _names(game: dict[str, Any], indices: list[int]) -> str:
    names = ["you" if index == game["your_seat"] else player_name(game["seats"][index]) for index in indices]
    return " and ".join(names) if len(names) < 3 else ", ".join(names[:-1]) + " and " + names[-1]


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
    told = (" to " if min(shown, default=0) < 0 else "-").join(f"{score:g}" for score in shown) if len(scores) > 1 else ""
    reason = end_words(game["presentation"], result)
    if not winners:
        head = "Nobody won"
    elif len(winners) > 1 and len(winners) == len(game["seats"]):
        head = "A draw"
    elif game["your_seat"] in winners:
        head = "You won" if len(winners) == 1 else f"You shared the win with {_names(game, [w for w in winners if w != game['your_seat']])}"
    else:
        head = f"{_names(game, winners)} won"
    return f"{head} {told}: {reason}".replace("  ", " ") if told else f"{head}: {reason}"


def status_line(game: dict[str, Any]) -> str:
    if game["status"] == "finished":
        return result_words(game)
    if game["status"] == "open":
        open_seats = game["players"] - sum(1 for seat in game["seats"] if seat.get("username") or seat.get("bot"))
        return f"Waiting for {open_seats} more player{'' if open_seats == 1 else 's'} to join"
    prompt = game["presentation"]["prompt"]
    others = [seat for seat in game["to_act"] if seat != game["your_seat"]]
    if prompt:
        return prompt if not others else f"{prompt} ({_names(game, others)} must move too)"
    return f"{_names(game, others)} must move" if others else "Waiting"


def log_lines(game: dict[str, Any], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**event, "who": None if event["seat"] is None else player_name(game["seats"][event["seat"]])} for event in events]


@cache
def how_to_play(rules_id: str) -> str:
    """The game's own page (docs/games/<id>.md) as HTML; its raw HTML is not passed through."""
    text = selectors.rules_detail(rules_id=rules_id).get("doc")
    return MarkdownIt("commonmark", {"html": False}).render(text) if text else ""
