"""Every refusal in the reader's language, its code the same in each: the rules' (an illegal or
malformed move, written with `rules.words.msg` and translated by `games.words`), the services'
and the API's own (a `detail` follows Accept-Language); a score or points written the reader's
way (1,5 in Dutch). The rules' refusals are found by playing: every one a game gives for moves
mutated from its legal ones, or played by the wrong seat, has a Dutch translation."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.utils import translation

import rules
from games import words
from rules.errors import RulesError
from rules.presentation import text_lines
from rules.words import Message, Number, msg
from tests.rules.test_move_fuzz import _mutants

POSITIONS = 25


def _templates(message: Message) -> list[str]:
    """The message's own template and those of every message written into it."""
    found = [message.template]
    for value in message.params.values():
        if isinstance(value, BaseException) and len(value.args) == 1:
            value = value.args[0]
        if isinstance(value, Message):
            found += _templates(value)
    return found


def _refusals(game) -> list[RulesError]:
    rnd, found = random.Random(f"dutch-{game.id}"), []
    for players in sorted({game.min_players, game.max_players}):
        state = game.setup(players, {}, f"refusals-{players}")
        for _ in range(POSITIONS):
            if game.outcome(state) is not None:
                break
            acting = game.to_act(state)
            seat = rnd.choice(acting)
            moves = game.legal_moves(state, seat)
            waiting = [other for other in range(players) if other not in acting]
            tried = [(seat, mutant) for mutant in _mutants(rnd.choice(moves), rnd)]
            tried += [(other, rnd.choice(moves)) for other in waiting[:1]]  # not this seat's turn
            for who, move in tried:
                try:
                    game.apply(state, who, move)
                except RulesError as error:
                    found.append(error)
            state = game.apply(state, seat, rnd.choice(moves))
    return found


def _has_words(template: str) -> bool:
    """A template with words of its own (not only "{type}: {error}"): one a reader must read."""
    return bool(re.search(r"[A-Za-z]{2}", re.sub(r"\{[^}]*\}", "", template)))


SHIPPED = [
    game for game in rules.catalog().values() if type(game).__module__.startswith("rules.")
]  # not the tests' toys


@pytest.mark.parametrize("game", SHIPPED, ids=lambda game: game.id)
def test_every_refusal_the_rules_give_is_written_with_msg_and_translated(game):
    refusals = _refusals(game)
    assert refusals, "the mutated moves found no refusal"
    with translation.override("nl"):
        for error in refusals:
            assert isinstance(error.message, Message), f"{error.code}: {error.message!r} is not written with msg"
            for template in filter(_has_words, _templates(error.message)):
                assert translation.gettext(template) != template, f"{error.code}: no Dutch for {template!r}"
            assert words.translated(error.message) != str(error.message) or not _has_words(error.message.template)


def test_a_terrain_vague_refusal_reads_in_dutch_with_the_rulebooks_words():
    game = rules.get("terrain_vague")
    state = game.setup(2, {}, "dutch-refusal")
    seat = game.to_act(state)[0]
    with pytest.raises(RulesError) as refused:
        game.apply(state, seat, {"type": "place_hex", "hex": [99, 99], "gang": "rubbles", "strength": "wimpy"})
    with translation.override("nl"):
        dutch = words.translated(refused.value.as_dict())
    assert dutch["code"] == refused.value.code
    assert "buiten het bord" in dutch["detail"] or "zeshoek" in dutch["detail"] or "Stenen" in dutch["detail"], dutch
    assert "off the board" not in dutch["detail"]
    # A pawn and a gang are named by the Dutch rulebook's words.
    with translation.override("nl"):
        text = words.translated(
            msg("{what}: the {kind} on {hex} is isolated", what="move", kind=msg("wheelbarrow"), hex="[1, 0]")
        )
    assert text == "move: de pion op [1, 0] (kruiwagen) is afgesneden"


def test_a_move_no_notation_reads_lists_the_legal_moves_in_the_readers_words_around_the_notation():
    """A reply by mail read when its seat had no moves (a greeting below the move, after the turn)
    was refused in Dutch with "legal moves: none" in English; a long list's "(and 43 more)" too."""
    game = rules.get("terrafex")
    state = game.setup(2, {}, "dutch-notation")
    mover = game.to_act(state)[0]
    refusals = []
    for seat in (1 - mover, mover):
        with pytest.raises(RulesError) as refused:
            game.parse_move(state, seat, "Succes!")
        refusals.append(refused.value.message)
    assert str(refusals[0]).endswith("legal moves: none") and str(refusals[1]).endswith(" more)")
    with translation.override("nl"):
        waiting, moving = (words.translated(message) for message in refusals)
    assert waiting == "geen toegestane zet luidt 'Succes!'; toegestane zetten: geen"
    assert re.search(r"; toegestane zetten: forest grow \S+; .* \(en nog \d+\)$", moving), moving  # the notation stays


def test_an_error_written_into_a_refusal_is_translated_too():
    inner = ValueError(msg("a hex is a list [q, r] of two whole numbers, not {value!r}", value="x"))
    outer = msg("{type}: {error}", type="rip", error=inner)
    assert str(outer) == "rip: a hex is a list [q, r] of two whole numbers, not 'x'"
    with translation.override("nl"):
        assert words.translated(outer) == "rip: een zeshoek is een lijst [q, r] van twee gehele getallen, niet 'x'"


def test_a_score_is_written_as_the_reader_writes_numbers():
    shown: dict[str, Any] = {
        "prompt": "",
        "panels": [
            {"seat": 0, "name": "A", "out": False, "score": 1.5, "score_parts": [], "resources": [], "notes": []},
            {"seat": 1, "name": "B", "out": False, "score": 2.0, "score_parts": [], "resources": [], "notes": []},
        ],
    }
    english = text_lines(shown, ["ann", "bob"], say=words.translated)
    assert "score 1.5" in english[0] and "score 2" in english[1] and "score 2.0" not in english[1]
    with translation.override("nl"):
        dutch = text_lines(shown, ["ann", "bob"], say=words.translated)
    assert "1,5" in dutch[0] and "1.5" not in dutch[0] and dutch[1].endswith("2")
    assert f"{Number(3.0)}" == "3" and str(Number(0.25)) == "0.25"


# --- the services' and the API's refusals ------------------------------------------------------

api = pytest.mark.django_db(transaction=True)


@api
def test_a_service_refusal_and_a_rules_refusal_read_in_dutch_by_accept_language():
    from tests.api.conftest import start_game

    game_id, seated = start_game("terrain_vague", 2)
    again = seated[0].post(f"/api/games/{game_id}/join/", {}, **{"Accept-Language": "nl"})
    assert again.status_code >= 400 and again.json()["code"] in ("already_seated", "game_not_open")
    assert "partij" in again.json()["detail"], again.json()
    game = seated[0].get(f"/api/games/{game_id}/").json()
    mover = seated[game["to_act"][0]]
    bad = {"type": "place_hex", "hex": [99, 99], "gang": "rubbles", "strength": "wimpy"}
    english = mover.submit(game_id, bad, game["seq"], **{"Accept-Language": "en"}).json()
    dutch = mover.submit(game_id, bad, game["seq"], **{"Accept-Language": "nl"}).json()
    assert english["code"] == dutch["code"] and english["detail"] != dutch["detail"]
    assert "place_hex" in dutch["detail"] and any(
        word in dutch["detail"] for word in ("bord", "zeshoek", "bende", "Stenen")
    )


@api
def test_a_bad_token_and_a_missing_page_are_refused_in_dutch():
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-token")
    refused = client.get("/api/accounts/me/", HTTP_ACCEPT_LANGUAGE="nl")
    english = client.get("/api/accounts/me/", HTTP_ACCEPT_LANGUAGE="en").json()
    assert refused.status_code == 401 and refused.json()["code"] == english["code"]
    assert "ongeldig" in refused.json()["detail"].lower() and "invalid" in english["detail"].lower()
    from django.test import Client

    page = Client().get("/no-such-page/", HTTP_ACCEPT_LANGUAGE="nl", HTTP_ACCEPT="text/html")
    assert page.status_code == 404 and "Hier is niets." in page.content.decode()


def test_the_analysis_mail_reads_in_dutch_with_dutch_numbers():
    from mail import analysis_mail

    answer = {
        "seen_from": "",
        "moves": [
            {
                "seq": 7,
                "seat": 0,
                "text": "move 3,4",
                "mark": "mistake",
                "before": 0.62,
                "after": 0.31,
                "preferred_text": "stay",
            }
        ],
    }
    with translation.override("nl"):
        lines = analysis_mail.marked_lines(answer, {0: "ann"})
        game = {"id": 12, "rules": "toy_race", "seats": [{"username": "ann"}, {"username": "bob"}]}
        mail = analysis_mail._mail(game, answer, {0: "ann"}, 1)
    assert lines == ["     7  ann: move 3,4  ?? fout, 0,62 -> 0,31; de bot had liever stay"]
    assert mail.subject == "Scrapyard-partij 12: toy_race, ann v bob"  # the game's thread, in Dutch
    assert mail.text.startswith("Analyse van partij 12\n") and "De analyse van partij 12 is klaar: 1 zetten" in mail.text
    english = analysis_mail.marked_lines(answer, {0: "ann"})
    assert english == ["     7  ann: move 3,4  ?? mistake, 0.62 -> 0.31; the bot preferred stay"]


def test_a_mails_scores_are_written_as_the_reader_writes_numbers():
    from mail import compose

    assert compose.number(2.5) == "2.5" and compose.number(8.0) == "8" and compose.number(3) == "3"
    with translation.override("nl"):
        assert compose.number(2.5) == "2,5" and compose.number(8.0) == "8"
