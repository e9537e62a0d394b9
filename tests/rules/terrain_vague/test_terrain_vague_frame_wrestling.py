"""Terrain Vague Indian wrestling: the book's two worked duels, secrecy of the choices in views,
logs, errors and legal moves, commitments that verify, timeouts and determinization."""

from __future__ import annotations

import json
import random

import pytest

from rules.errors import IllegalMove, MalformedMove, NotYourTurn
from rules.rng import Rng
from rules.terrain_vague import RULES, data, wrestling
from rules.terrain_vague.state import ACT, WRESTLE, Turf
from rules.values import commitment
from tests.rules.terrain_vague.test_terrain_vague_frame import make_state, turf_block

R, B = data.RUBBLES, data.BRAMBLES
DIGITS = "choose_digits"
BARS = "choose_bars"


def red_turn_three():
    """Rubbles (seat 0, red 1) and Brambles (seat 1, red 3) at the start of turn 3."""
    own = {**turf_block(R, [(1, 0), (2, 0)]), **turf_block(B, [(-1, 0), (-2, 0)])}
    clubs = {R: (1, 0), B: (-1, 0)}
    state = make_state(own=own, clubhouses=clubs, turn=2, step=5, acting=B, built=())
    return RULES.apply(state, 1, {"type": "end_step"})


def test_the_book_scores_digits_against_bars():
    assert wrestling.score((5, 5, 7), (5,)) == (7, 2)
    assert wrestling.score((8,), (5, 7, 8)) == (0, 1)
    assert wrestling.score((1, 2), (3, 4)) == (3, 0)


def test_a_red_turn_starts_with_both_gangs_of_the_first_duel_to_act():
    state = red_turn_three()
    assert state.turn == 3 and state.phase == WRESTLE
    assert [(d.attacker, d.defender, d.attack_number, d.defence_number) for d in state.duels] == [
        (R, B, 1, 3),
        (B, R, 3, 1),
    ]
    assert RULES.to_act(state) == (0, 1)
    assert len(RULES.legal_moves(state, 0)) == 8  # one digit of eight values
    assert len(RULES.legal_moves(state, 1)) == 56  # three bars out of eight
    assert all(m["type"] == BARS for m in RULES.legal_moves(state, 1))


def test_the_books_two_worked_duels():
    state = red_turn_three()
    state = RULES.apply(state, 0, {"type": DIGITS, "digits": [8]})
    state = RULES.apply(state, 1, {"type": BARS, "bars": [8, 5, 7]})
    assert state.points[R] == 0  # the 8 against bars 5, 7, 8
    assert RULES.to_act(state) == (0, 1)
    state = RULES.apply(state, 1, {"type": DIGITS, "digits": [5, 7, 5]})
    state = RULES.apply(state, 0, {"type": BARS, "bars": [5]})
    assert state.points[B] == 7  # 5, 5, 7 against the bar 5
    assert state.phase == ACT and state.step == 2
    assert state.order == (B, R) and state.acting == B
    assert dict(state.cancelled) == {R: 1, B: 2}


def test_digit_choices_allow_three_of_a_value_and_bars_one():
    assert len(wrestling.digit_choices(3)) == 120  # C(10, 3): no value can exceed three
    assert (5, 5, 5) in wrestling.digit_choices(3)
    assert len(wrestling.bar_choices(3)) == 56
    assert all(len(set(c)) == 3 for c in wrestling.bar_choices(3))


@pytest.mark.parametrize(
    "seat_, move, error, code",
    [
        (1, {"type": BARS, "bars": [5, 7]}, IllegalMove, "wrong_tile_count"),
        (1, {"type": BARS, "bars": [5, 5, 7]}, IllegalMove, "unavailable_tile"),
        (1, {"type": BARS, "bars": [5, 7, 9]}, IllegalMove, "unavailable_tile"),
        (1, {"type": DIGITS, "digits": [5, 7, 8]}, IllegalMove, "wrong_duel_role"),
        (1, {"type": BARS, "bars": "578"}, MalformedMove, "bad_tiles"),
        (0, {"type": DIGITS, "digits": [0]}, IllegalMove, "unavailable_tile"),
        (0, {"type": "end_step"}, IllegalMove, "wrong_phase"),
    ],
)
def test_bad_choices_are_refused_with_codes(seat_, move, error, code):
    with pytest.raises(error) as raised:
        RULES.apply(red_turn_three(), seat_, move)
    assert raised.value.code == code


def test_a_choice_stays_secret_from_the_other_seat_until_the_duel_resolves():
    start = red_turn_three()
    other_moves_before = RULES.legal_moves(start, 0)
    move = {"type": BARS, "bars": [5, 7, 8]}
    after = RULES.apply(start, 1, move)
    hidden = after.duels[0].defence
    # The other seat, the spectator and the log see only the commitment.
    for seat_ in (0, None):
        seen = RULES.view(after, seat_)
        assert seen["duels"][0]["defence"] == {"commitment": hidden.commitment}
        assert hidden.salt not in json.dumps(seen)
        assert "5, 7, 8" not in RULES.render_text(after, seat_)
    logged = RULES.public_move(start, 1, move, after)
    assert logged == {"type": BARS, "commitment": hidden.commitment}
    assert RULES.legal_moves(after, 0) == other_moves_before
    assert RULES.to_act(after) == (0,)
    with pytest.raises(NotYourTurn) as error:
        RULES.apply(after, 1, {"type": BARS, "bars": [1, 2, 3]})
    assert "5" not in error.value.message and "7" not in error.value.message
    # The chooser sees its own choice.
    own = RULES.view(after, 1)["duels"][0]["defence"]
    assert own["tiles"] == [5, 7, 8] and own["salt"] == hidden.salt


def test_the_resolving_move_reveals_both_choices_and_salts_that_verify():
    start = red_turn_three()
    first = RULES.apply(start, 1, {"type": BARS, "bars": [5, 7, 8]})
    shown_first = RULES.public_move(start, 1, {"type": BARS, "bars": [5, 7, 8]}, first)
    last_move = {"type": DIGITS, "digits": [8]}
    resolved = RULES.apply(first, 0, last_move)
    logged = RULES.public_move(first, 0, last_move, resolved)
    assert logged["type"] == DIGITS and "digits" not in logged
    (duel,) = logged["revealed"]
    assert duel["attack"]["tiles"] == [8] and duel["defence"]["tiles"] == [5, 7, 8]
    assert duel["defence"]["commitment"] == shown_first["commitment"]
    for side in ("attack", "defence"):
        revealed = duel[side]
        assert commitment(revealed["tiles"], revealed["salt"]) == revealed["commitment"]
    assert RULES.view(resolved, None)["wrestled"][0]["defence"]["tiles"] == [5, 7, 8]


def test_salts_come_from_the_seeded_state_rng():
    a = RULES.apply(red_turn_three(), 1, {"type": BARS, "bars": [5, 7, 8]})
    b = RULES.apply(red_turn_three(), 1, {"type": BARS, "bars": [5, 7, 8]})
    assert a == b and a.rng.drawn == red_turn_three().rng.drawn + 1


def test_a_timed_out_choice_is_random_from_the_seed_and_legal():
    state = red_turn_three()
    move = RULES.timeout_move(state, 1)
    assert move == RULES.timeout_move(state, 1)
    assert move in RULES.legal_moves(state, 1)
    reseeded = [state.with_(rng=Rng(f"seed-{i}")) for i in range(8)]
    picks = {json.dumps(RULES.timeout_move(s, 1)) for s in reseeded}
    assert len(picks) > 1


def test_sampling_draws_the_hidden_choice_but_keeps_the_view():
    state = RULES.apply(red_turn_three(), 1, {"type": BARS, "bars": [5, 7, 8]})
    seen = json.loads(json.dumps(RULES.view(state, 0)))
    sampled = RULES.sample_state(seen, 0, random.Random(7))
    assert RULES.view(sampled, 0) == seen
    assert RULES.legal_moves(sampled, 0) == RULES.legal_moves(state, 0)
    assert len(sampled.duels[0].defence.tiles) == 3
    assert sampled.rng.seed != state.rng.seed


def test_three_gangs_the_substitute_earns_nothing_and_the_picker_scores():
    own = {
        **turf_block(R, [(1, 0), (2, 0)]),
        **turf_block(B, [(-1, 0), (-2, 0)]),
        **turf_block(data.CESSPOOLS, [(0, 2), (0, 3)]),
    }
    clubs = {R: (1, 0), B: (-1, 0), data.CESSPOOLS: (0, 2)}
    state = make_state(seats=(R, B, data.CESSPOOLS), own=own, clubhouses=clubs, turn=5, step=5,
                       acting=data.CESSPOOLS, order=(R, B, data.CESSPOOLS), built=())
    state = state.with_(challenges=state.challenges.set(data.CESSPOOLS, R))
    state = RULES.apply(state, 2, {"type": "end_step"})
    assert state.turn == 6 and len(state.duels) == 3
    for _ in range(2):  # the sworn pair: digits [2, 2] against bars [1, 3]
        duel = state.duels[0]
        state = RULES.apply(state, state.seat_of(duel.attacker), {"type": DIGITS, "digits": [2, 2]})
        state = RULES.apply(state, state.seat_of(duel.defender), {"type": BARS, "bars": [1, 3]})
    assert state.points[R] == 4 and state.points[B] == 4
    state = RULES.apply(state, 2, {"type": DIGITS, "digits": [6]})
    state = RULES.apply(state, 0, {"type": BARS, "bars": [1, 2, 3]})
    assert state.points[data.CESSPOOLS] == 6 and state.points[R] == 4
    assert state.order == (data.CESSPOOLS, R, B)


def test_a_forfeit_during_wrestling_still_fights_the_attacks_on_the_gang():
    state = red_turn_three()
    assert RULES.forfeit(state, 0).phase == "over"  # two gangs: the other wins at once
    C = data.CESSPOOLS
    state = make_state(seats=(R, B, C), built=(),
                       own={**turf_block(R, [(1, 0), (2, 0)]), **turf_block(B, [(-1, 0), (-2, 0)]),
                            **turf_block(C, [(0, 2), (0, 3)])},
                       clubhouses={R: (1, 0), B: (-1, 0), C: (0, 2)},
                       turn=2, step=5, acting=C, order=(R, B, C))
    state = state.with_(challenges=state.challenges.set(C, B))
    state = RULES.apply(state, 2, {"type": "end_step"})
    after = RULES.forfeit(state, state.seat_of(B))
    assert after.eliminated == (B,)
    assert Turf(B, data.WIMPY) in after.board.values()
    # Rubbles' attack and the Cesspools' attack on the leaver are still fought; its own is off.
    assert after.phase == WRESTLE
    assert [(d.attacker, d.defender) for d in after.duels] == [(R, B), (C, B)]
    assert all(d.defence is not None and d.attack is None for d in after.duels)
    assert RULES.to_act(after) == (after.seat_of(R),)
    after = RULES.apply(after, after.seat_of(R), {"type": DIGITS, "digits": [4]})
    after = RULES.apply(after, after.seat_of(C), {"type": DIGITS, "digits": [6, 6]})
    assert after.phase == ACT and after.step == 2
    for duel in after.wrestled:
        assert after.points[duel.attacker] == wrestling.score(duel.attack.tiles, duel.defence.tiles)[0]


# --- a gang leaving during the wrestling (4 gangs) -------------------------------------------

C, S = data.CESSPOOLS, data.SCRAPPERS


def four_gang_red_turn():
    """Turn 3 with four gangs: duels R->B (Rubbles 1 digit, Brambles 3 bars), B->R, C->S, S->C."""
    from tests.rules.terrain_vague.test_terrain_vague_frame import four_gangs

    state = four_gangs(turn=2, step=5, acting=S, order=(R, B, C, S))
    state = RULES.apply(state, 3, {"type": "end_step"})
    assert [(d.attacker, d.defender) for d in state.duels] == [(R, B), (B, R), (C, S), (S, C)]
    return state


def drawn_bars(state, gang="brambles", count=3):
    """The bars the leaver gets: drawn from the seed's timeout stream, as a choice not made."""
    index, _ = Rng(f"{state.rng.seed}:timeout:{gang}", state.rng.drawn).below(
        len(wrestling.bar_choices(count)))
    return wrestling.bar_choices(count)[index]


def revealed_after(before, seat_, move):
    after = RULES.apply(before, seat_, move)
    return after, RULES.public_move(before, seat_, move, after)


def test_a_gang_leaving_before_any_choice_gets_random_bars_kept_secret_until_the_duel():
    state = four_gang_red_turn()
    bars = drawn_bars(state)
    after = RULES.forfeit(state, 1)
    assert after.eliminated == (B,) and after.phase == WRESTLE
    assert [(d.attacker, d.defender) for d in after.duels] == [(R, B), (C, S), (S, C)]
    assert RULES.to_act(after) == (0,)
    drawn = after.duels[0].defence
    assert drawn.tiles == bars and commitment(list(bars), drawn.salt) == drawn.commitment
    # Nobody sees the drawn bars before the duel resolves: not the attacker, a spectator, the
    # other gangs, nor the gang that left; the render and the attacker's moves tell nothing.
    for seat_ in (0, 1, 2, 3, None):
        seen = RULES.view(after, seat_)
        assert seen["duels"][0]["defence"] == {"commitment": drawn.commitment}
        assert drawn.salt not in json.dumps(seen)
    assert RULES.legal_moves(after, 0) == RULES.legal_moves(state, 0)
    resolved, logged = revealed_after(after, 0, {"type": DIGITS, "digits": [bars[0]]})
    assert resolved.points[R] == 0  # its one digit met a bar
    (duel,) = logged["revealed"]
    assert duel["defence"] == {"tiles": list(bars), "salt": drawn.salt, "commitment": drawn.commitment}
    assert [(d.attacker, d.defender) for d in resolved.duels] == [(C, S), (S, C)]
    assert RULES.forfeit(state, 1) == after  # drawn from the seed: the same every replay


def test_a_gang_leaving_after_its_attacker_committed_resolves_that_duel_at_once():
    state = four_gang_red_turn()
    state = RULES.apply(state, 0, {"type": DIGITS, "digits": [8]})
    bars = drawn_bars(state)
    after = RULES.forfeit(state, 1)
    (duel,) = after.wrestled
    assert (duel.attacker, duel.defender) == (R, B) and duel.defence.tiles == bars
    assert after.points[R] == (0 if 8 in bars else 8)
    assert [(d.attacker, d.defender) for d in after.duels] == [(C, S), (S, C)]
    assert RULES.to_act(after) == (2, 3)
    # Another seed whose bars miss the 8: the attacker of the leaver is never left without points.
    for k in range(20):
        seeded = state.with_(rng=Rng(f"other-{k}", state.rng.drawn))
        if 8 not in drawn_bars(seeded):
            assert RULES.forfeit(seeded, 1).points[R] == 8
            break
    else:
        raise AssertionError("no seed drew bars without the 8")


def test_a_gang_leaving_after_it_committed_keeps_its_chosen_bars():
    state = four_gang_red_turn()
    state = RULES.apply(state, 1, {"type": BARS, "bars": [1, 2, 3]})
    chosen = state.duels[0].defence
    after = RULES.forfeit(state, 1)
    assert after.duels[0].defence == chosen
    assert RULES.view(after, 1)["duels"][0]["defence"] == {"commitment": chosen.commitment}
    resolved = RULES.apply(after, 0, {"type": DIGITS, "digits": [7]})
    assert resolved.points[R] == 7 and resolved.wrestled[0].defence.tiles == (1, 2, 3)


def test_a_gang_leaving_in_its_own_attack_calls_it_off():
    state = four_gang_red_turn()
    state = RULES.apply(state, 0, {"type": DIGITS, "digits": [7]})
    state = RULES.apply(state, 1, {"type": BARS, "bars": [1, 2, 3]})
    assert state.points[R] == 7 and (state.duels[0].attacker, state.duels[0].defender) == (B, R)
    state, _ = revealed_after(state, 0, {"type": BARS, "bars": [5]})  # Rubbles' bars are in
    secret_bars = state.duels[0].defence
    after = RULES.forfeit(state, 1)
    assert [(d.attacker, d.defender) for d in after.duels] == [(C, S), (S, C)]
    assert after.points[R] == 7 and after.points[B] == 0  # Rubbles' own attack stands
    assert [(d.attacker, d.defender) for d in after.wrestled] == [(R, B)]  # the off duel is unseen
    for seat_ in (0, 2, None):
        assert secret_bars.salt not in json.dumps(RULES.view(after, seat_))
    done = after
    for seat_, move in ((2, {"type": DIGITS, "digits": [4, 4]}), (3, {"type": BARS, "bars": [1, 2]}),
                        (3, {"type": DIGITS, "digits": [6, 6]}), (2, {"type": BARS, "bars": [1, 2]})):
        done = RULES.apply(done, seat_, move)
    assert done.phase == ACT and done.step == 2 and done.order == (S, C, R)  # 12, 8, 7 points


def test_two_gangs_that_are_not_sworn_enemies_duel_each_other_with_their_own_numbers():
    C = data.CESSPOOLS
    own = {**turf_block(R, [(1, 0), (2, 0)]), **turf_block(C, [(-1, 0), (-2, 0)])}
    state = make_state(seats=(R, C), own=own, clubhouses={R: (1, 0), C: (-1, 0)}, turn=2, step=5,
                       acting=C, order=(R, C), options={"gangs": "rubbles-cesspools"}, built=())
    state = RULES.apply(state, 1, {"type": "end_step"})
    assert state.phase == WRESTLE and state.challenges == {}
    assert [(d.attacker, d.defender, d.attack_number, d.defence_number) for d in state.duels] == [
        (R, C, 1, 2),
        (C, R, 2, 1),
    ]
