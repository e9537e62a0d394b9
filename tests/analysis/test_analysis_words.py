"""An analysis read in the reader's language: each move (and the move the bot preferred) in the
reader's words beside its notation, which stays what it was; the words are stored as the rules
wrote them (`rules.words.message_data`), so one analysis is read in every language. An analysis
stored before the words were kept still reads, in notation."""

from __future__ import annotations

import json
import random

import pytest
from django.utils import translation

import rules
from analysis import selectors
from analysis.models import Analysis, AnalysisStatus
from games import words
from mail import analysis_mail
from tests.analysis.conftest import run_analysis
from rules.words import Message, Number, message_data, message_from, msg, nmsg
from tests.api.conftest import start_game

pytestmark = pytest.mark.django_db


def _finished_terrafex(moves: int = 8) -> tuple[int, list]:
    game_id, seated = start_game("terrafex", 2)
    rnd = random.Random(game_id)
    for _ in range(moves):
        game = seated[0].get(f"/api/games/{game_id}/").json()
        seat = game["to_act"][0]
        legal = seated[seat].get(f"/api/games/{game_id}/legal-moves/").json()
        assert seated[seat].submit(game_id, rnd.choice(legal["moves"]), legal["seq"]).status_code == 201
    assert seated[1].post(f"/api/games/{game_id}/resign/").status_code == 200
    return game_id, seated


def _analysed(ask, player, game_id: int) -> None:
    ask(player, game_id)
    assert run_analysis(game_id) == "done"


def _read(player, game_id: int, language: str) -> dict:
    return player.client.get(f"/api/games/{game_id}/analysis", HTTP_ACCEPT_LANGUAGE=language).json()


def _dutch(message: Message) -> str:
    with translation.override("nl"):
        return str(words.translated(message))


def test_a_message_stored_as_json_is_written_again_with_its_words_and_values():
    written = msg("{first} then {second}", first=nmsg("{count} step", "{count} steps", 3, where="here"),
                  second=msg("score {points}", points=Number(1.5)))
    data = json.loads(json.dumps(message_data(written)))
    back = message_from(data)
    assert back == written == "3 steps then score 1.5"
    assert _dutch(back) == _dutch(written)
    assert back.params["first"].count == 3 and isinstance(back.params["second"].params["points"], Number)
    assert message_data("a plain notation") is None


def test_every_described_move_of_a_game_comes_back_the_same_from_its_stored_data():
    game_rules = rules.get("terrain_vague")
    state = game_rules.setup(2, {}, "words")
    seat = game_rules.to_act(state)[0]
    for move in game_rules.legal_moves(state, seat):
        described = game_rules.describe_move(state, seat, move)
        back = message_from(json.loads(json.dumps(message_data(described))))
        assert back == described and _dutch(back) == _dutch(described)


def test_a_dutch_reader_reads_each_analysed_move_in_dutch_beside_its_notation(ask, sent):
    game_id, (alice, bob) = _finished_terrafex()
    _analysed(ask, alice, game_id)
    stored = Analysis.objects.get(game_id=game_id).moves

    dutch, english = _read(bob, game_id, "nl"), _read(bob, game_id, "en")
    assert [move["text"] for move in dutch["moves"]] == [move["text"] for move in english["moves"]]
    for move, kept in zip(dutch["moves"], stored):
        assert move["text"] == kept["text"] and move["words"] == _dutch(message_from(kept["text_message"]))
        assert move["preferred_words"] == _dutch(message_from(kept["preferred_message"]))
        assert "text_message" not in move and "preferred_message" not in move
    assert any(move["words"] != move["text"] for move in dutch["moves"]), dutch["moves"]
    assert any(move["preferred_words"] != move["preferred_text"] for move in dutch["moves"])
    for move in english["moves"]:  # an English reader's words are the notation itself
        assert move["words"] == move["text"] and move["preferred_words"] == move["preferred_text"]


def test_the_analysis_mail_lists_each_marked_move_in_notation_with_its_dutch_words(ask, sent):
    game_id, (alice, _) = _finished_terrafex()
    _analysed(ask, alice, game_id)
    analysis = Analysis.objects.get(game_id=game_id)
    for move in analysis.moves:  # every move marked, to see them all in the mail's list
        move["mark"] = "mistake"
    analysis.save()
    names = {0: "alice", 1: "bob"}

    with translation.override("nl"):
        answer = selectors.analysis_done_of(game_id=game_id)
        lines = analysis_mail.marked_lines(answer, names)
    with translation.override("en"):
        english = analysis_mail.marked_lines(selectors.analysis_done_of(game_id=game_id), names)

    told = [move for move in answer["moves"] if move["words"] != move["text"]]
    assert told and all(any(f"{move['text']}  ({move['words']})" in line for line in lines) for move in told)
    assert any("fout" in line for line in lines)  # the rest of the line in Dutch, as before
    assert all(f": {move['text']}  ?? mistake" in line for move, line in zip(answer["moves"], english))


def test_an_analysis_stored_before_the_words_were_kept_reads_its_notation(ask, sent, client):
    game_id, (alice, bob) = _finished_terrafex(moves=2)
    old = {"seq": 2, "seat": 0, "move": {"type": "pass"}, "text": "pass", "before": 0.6, "after": 0.2, "drop": 0.4,
           "preferred": {"type": "take"}, "preferred_text": "take 3", "choices": 4, "mark": "mistake"}
    Analysis.objects.create(game_id=game_id, status=AnalysisStatus.DONE, moves=[old])

    move = _read(bob, game_id, "nl")["moves"][0]
    assert (move["text"], move["words"], move["preferred_text"], move["preferred_words"]) == ("pass", "pass", "take 3", "take 3")
    with translation.override("nl"):
        lines = analysis_mail.marked_lines(selectors.analysis_done_of(game_id=game_id), {0: "alice"})
    assert lines[0].startswith("     2  alice: pass  ??") and lines[0].endswith("take 3")
