"""The game-over mail says how the game was decided: the rules' words where they ended it (a
tie-break named), else the result's reason."""

from __future__ import annotations

import random

import rules
from mail import compose

TIED = "the largest home turf after the last turn, tied at 2; most own hexes on the board, 3 to 2"


def _ctx(reason: str, ending: str | None) -> dict:
    panels = [{"seat": seat, "name": name, "colour": "sienna", "score": 2, "score_parts": [], "resources": [],
               "notes": [], "out": False} for seat, name in enumerate(("Rubbles", "Brambles"))]
    seats = [{"seat": 0, "username": "ada"}, {"seat": 1, "username": "bo"}]
    return {
        "game": {"id": 7, "rules": "terrain_vague", "status": "finished", "seats": seats, "to_act": [],
                 "result": {"scores": [1.0, 0.0], "winners": [0], "reason": reason}},
        "presentation": {"panels": panels, "prompt": None, "touched": [], "ending": ending},
        "board": "(the board)", "seat": 0, "seed": "s33d", "unsubscribe": "https://example.test/u", "reply_to": "",
    }


def test_the_game_over_mail_names_what_decided_a_tied_end():
    mail = compose.game_over(_ctx("largest_home_turf", TIED))
    assert f"is over: {TIED}. Winner: ada." in " ".join(mail.text.split())


def test_a_game_the_rules_did_not_end_is_told_by_its_reason():
    mail = compose.game_over(_ctx("draw_agreed", None))
    assert "is over: draw agreed. Winner: ada." in " ".join(mail.text.split())


def test_a_terrain_vague_game_over_mail_gives_the_home_turf_the_players_saw():
    """The mail once told a finished Terrain Vague game by its win shares alone ("Scores: 0, 1"),
    the home turf each panel scored all game (15, 9) nowhere."""
    game, rnd = rules.get("terrain_vague"), random.Random(2)
    state = game.setup(2, {}, "over")
    while game.outcome(state) is None:
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rnd.choice(game.legal_moves(state, seat)))
    shown, outcome = game.presentation(state, 0), game.outcome(state)
    ctx = _ctx(outcome.reason, shown["ending"])
    ctx["presentation"] = shown
    ctx["game"]["result"] = {"scores": list(outcome.scores), "winners": list(outcome.winners), "reason": outcome.reason}
    text = " ".join(compose.game_over(ctx).text.split())
    turfs = ", ".join(f"{p['name']} {p['score']}" + (" (won)" if p["seat"] in outcome.winners else "") for p in shown["panels"])
    assert f"home turf {turfs}. Winner:" in text, text


def test_the_scores_line_gives_what_the_panels_scored_not_the_win_shares():
    """'Scores: ada 1, bo 0' told a Terrain Vague game by its win shares under an ending that
    gave the home turf each gang held; the page's result line reads the panels' scores."""
    ctx = _ctx("largest_home_turf", TIED)
    for panel, score in zip(ctx["presentation"]["panels"], (12, 10)):
        panel["score"] = score
    text = compose.game_over(ctx).text
    assert "Scores: ada 12, bo 10" in text and "Scores: ada 1," not in text, text


def test_without_a_score_on_every_panel_the_results_scores_are_given():
    ctx = _ctx("draw_agreed", None)
    ctx["presentation"]["panels"][1]["score"] = None
    assert "Scores: ada 1, bo 0" in compose.game_over(ctx).text
