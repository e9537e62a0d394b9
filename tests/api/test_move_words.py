"""A move described in the reader's language beside its notation: the legal moves' `words` and
the log's `text` in Dutch for a Dutch reader, the `notation` a reply types unchanged; English
readers read the notation itself. Every game alike: the rules write a move's words, whose English
is its notation. A described move tells nobody more than the log did: another seat's secret
choice stays "chose in secret", with no notation."""

from __future__ import annotations

import random

import pytest
from django.utils import translation
from rest_framework.test import APIClient

import rules
from games import words
from tests.api.conftest import start_game

pytestmark = pytest.mark.django_db
DUTCH = {"HTTP_ACCEPT_LANGUAGE": "nl"}


def _get(player, path: str, **headers):
    return player.client.get(path, format="json", **headers).json()


def _play(seated, game_id: int, pick) -> dict:
    game = _get(seated[0], f"/api/games/{game_id}/")
    seat = game["to_act"][0]
    listed = _get(seated[seat], f"/api/games/{game_id}/legal-moves/")
    assert seated[seat].submit(game_id, pick(listed["moves"]), listed["seq"]).status_code == 201
    return game


def test_the_legal_moves_and_the_log_read_in_dutch_beside_the_notation():
    game_id, seated = start_game("terrafex", 2)
    mover = _get(seated[0], f"/api/games/{game_id}/")["to_act"][0]
    dutch = _get(seated[mover], f"/api/games/{game_id}/legal-moves/", **DUTCH)
    english = _get(seated[mover], f"/api/games/{game_id}/legal-moves/")
    assert dutch["notation"] == english["notation"] == english["words"]  # English words are the notation
    told = dict(zip(dutch["notation"], dutch["words"], strict=True))
    assert told["fire small"] == "vuur klein" and told["fire large"] == "vuur groot"
    assert all(said != notation for notation, said in told.items()), told
    assert len(set(dutch["words"])) == len(dutch["words"])  # one reading per move, as the notation has
    start = next(move for move in dutch["moves"] if move["type"] == "mountain")
    answer = seated[mover].client.post(f"/api/games/{game_id}/moves/", {"move": start, "expected_seq": dutch["seq"]},
                                       format="json", **DUTCH).json()["game"]  # the turn goes on: its moves come with it
    assert answer["notation"] and all(said != notation for said, notation in zip(answer["words"], answer["notation"], strict=True))
    fire = next(move for move in answer["moves"] if move["type"] == "fire" and move["size"] == "S")
    assert seated[mover].submit(game_id, fire, answer["seq"]).status_code == 201
    for reader in (seated[0], seated[1]):
        log = _get(reader, f"/api/games/{game_id}/events/?notation=true", **DUTCH)["events"]
        assert (log[-1]["text"], log[-1]["notation"]) == ("vuur klein", "fire small")
        english_log = _get(reader, f"/api/games/{game_id}/events/?notation=true")["events"]
        assert (english_log[-1]["text"], english_log[-1]["notation"]) == ("fire small", "fire small")
    spectator = APIClient().get(f"/api/games/{game_id}/events/?notation=true", **DUTCH).json()["events"]
    assert spectator[-1]["text"] == "vuur klein" and spectator[0]["notation"] is None  # "game created" is no move


def test_a_secret_choice_is_described_to_nobody_else():
    game_id, seated = start_game("terrain_vague", 2, {"board": "random"})
    for _ in range(200):
        game = _get(seated[0], f"/api/games/{game_id}/")
        if game["view"]["phase"] == "wrestle":
            break
        _play(seated, game_id, lambda moves: next((m for m in moves if m["type"] == "end_step"), moves[0]))
    assert game["view"]["phase"] == "wrestle"
    chooser = game["to_act"][0]
    listed = _get(seated[chooser], f"/api/games/{game_id}/legal-moves/", **DUTCH)
    assert listed["words"][0].startswith(("cijfers ", "strepen ")), listed["words"][:3]  # the chooser reads its own in Dutch
    assert seated[chooser].submit(game_id, listed["moves"][0], listed["seq"]).status_code == 201
    own = _get(seated[chooser], f"/api/games/{game_id}/events/?notation=true", **DUTCH)["events"][-1]
    assert own["text"] == listed["words"][0] and own["notation"] == listed["notation"][0]
    for reader in (seated[1 - chooser].client, APIClient()):
        last = reader.get(f"/api/games/{game_id}/events/?notation=true", format="json", **DUTCH).json()["events"][-1]
        assert (last["text"], last["notation"]) == ("koos in het geheim", None), last
        assert listed["notation"][0] not in str(last) and listed["words"][0] not in str(last)


@pytest.mark.parametrize("rules_id", ["terrafex", "terrain_vague", "space_junkyard", "scavenge"])
def test_every_games_moves_read_in_dutch_and_as_the_notation_in_english(rules_id):
    """Random play: each legal move's words are its notation in English, and other words in Dutch,
    distinct for the seat's moves as the notation is."""
    game = rules.get(rules_id)
    rng = random.Random(rules_id)
    state, kinds = game.setup(2, None, "seed-" + rules_id), set()
    for _ in range(150):
        if game.outcome(state) is not None or not game.to_act(state):
            break
        seat = game.to_act(state)[0]
        moves = game.legal_moves(state, seat)
        notation = [game.describe_move(state, seat, move) for move in moves]
        with translation.override("en"):
            assert [words.translated(text) for text in notation] == notation
        with translation.override("nl"):
            dutch = [words.translated(text) for text in notation]
        assert all(said != text for said, text in zip(dutch, notation)), [(t, s) for t, s in zip(notation, dutch) if s == t]
        assert len(set(dutch)) == len(dutch)
        kinds |= {move["type"] for move in moves}
        state = game.apply(state, seat, rng.choice(moves))
    assert len(kinds) >= 2


def test_a_what_if_line_reads_in_dutch_beside_its_notation():
    """The conditional moves' page: the moves to pick from, and a queued line's moves, in the
    reader's words; the notation as it was."""
    game_id, seated = start_game("terrafex", 2)
    waiter = seated[1 - _get(seated[0], f"/api/games/{game_id}/")["to_act"][0]]
    preview = waiter.client.post(f"/api/games/{game_id}/conditionals/preview/", {"moves": []}, format="json", **DUTCH).json()
    told = dict(zip(preview["notation"], preview["words"], strict=True))
    assert told["fire small"] == "vuur klein" and all(said != notation for notation, said in told.items())
    english = waiter.post(f"/api/games/{game_id}/conditionals/preview/", {"moves": []}).json()
    assert english["words"] == english["notation"] == preview["notation"]
    theirs = preview["moves"][preview["notation"].index("fire small")]
    after = waiter.client.post(f"/api/games/{game_id}/conditionals/preview/", {"moves": [theirs]}, format="json", **DUTCH).json()
    mine = after["moves"][0]
    assert waiter.post(f"/api/games/{game_id}/conditionals/", {"moves": [theirs, mine]}).status_code == 201
    line = _get(waiter, f"/api/games/{game_id}/conditionals/", **DUTCH)["lines"][0]
    assert [(step["text"], step["words"]) for step in line["moves"]] == [
        ("fire small", "vuur klein"), (after["notation"][0], after["words"][0])]


def test_a_split_glacier_reads_as_its_notation_in_english_and_in_dutch_words():
    from rules.terrafex import moves

    split = {"type": "glacier", "from": [1, 3], "dir": "E", "place": [
        {"to": [2, 3], "size": "S", "place": [{"to": [3, 3], "size": "S"}]}, {"to": [2, 4], "size": "M"}]}
    described = moves.describe(split)
    assert described == "glacier 1,3 east then small to 2,3 [small to 3,3] and medium to 2,4"
    with translation.override("nl"):
        assert words.translated(described) == "gletsjer 1,3 naar het oosten, dan klein naar 2,3 [klein naar 3,3] en middel naar 2,4"


def test_the_table_page_renders_the_log_in_the_readers_words_with_the_notation_as_title():
    """The page as the server renders it, before its script reads the log again: the same lines."""
    from django.test import Client

    from tests.i18n.test_languages import PASSWORD

    game_id, seated = start_game("terrafex", 2)
    _play(seated, game_id, lambda moves: next(m for m in moves if m["type"] == "fire" and m["size"] == "S"))
    page = Client()
    assert page.login(username=seated[0].username, password=PASSWORD)
    dutch = page.get(f"/games/{game_id}/", HTTP_ACCEPT_LANGUAGE="nl").content.decode()
    assert 'title="fire small">' in dutch and ": vuur klein</li>" in dutch
    english = Client().get(f"/games/{game_id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert ": fire small</li>" in english and 'title="fire small"' not in english
