"""The game table's words written on the server (web/table.py): the result reads winner first."""

from __future__ import annotations

from web.table import result_words


def _game(winners: list[int], your_seat: int | None, scores=(10, 26), ending=None) -> dict:
    return {
        "result": {"winners": winners, "reason": "no_glacier_met_a_fire"},
        "presentation": {"panels": [{"score": score} for score in scores], "ending": ending},
        "your_seat": your_seat,
        "seats": [{"username": "ada"}, {"username": None, "bot": {"name": "random"}}],
    }


def test_a_result_gives_the_winners_score_first_whoever_reads_it():
    assert result_words(_game([1], your_seat=0)) == "bot random won 26-10: no glacier met a fire"
    assert result_words(_game([0], your_seat=0, scores=(27, 10))) == "You won 27-10: no glacier met a fire"
    assert result_words(_game([1], your_seat=None)) == "bot random won 26-10: no glacier met a fire"


def test_the_rules_words_for_the_end_stand_in_for_the_reasons_code():
    tied = _game([0], your_seat=0, scores=(11, 11), ending="the largest home turf, tied at 11; most own hexes, 14 to 12")
    assert result_words(tied) == "You won 11-11: the largest home turf, tied at 11; most own hexes, 14 to 12"


def test_a_negative_score_is_told_with_to_not_a_double_dash():
    assert result_words(_game([1], your_seat=0, scores=(-1, 0))) == "bot random won 0 to -1: no glacier met a fire"
