"""A turn of Terrain Vague: whose move it is, routing moves, turns and steps, eliminations, the end.

Flow: setup (build, clubhouses, the lone gang's pick) -> turns 1..12, each: `actions.start_turn`,
step 1 (hideout points, or on red turns the duels), steps 2-5 (each gang in play order acts and
ends its step), then the end-of-turn checks.

Phases (`state.phase`): build, clubhouse, pick, wrestle, act, over. `state.acting` is the gang to
act, None while wrestling (both duellists choose at once) and once the game is over. In the act
phase (steps 2-5) the legal moves are `actions.legal_actions` plus `end_step`, and every move of
a type in `moves.ACTION_TYPES` goes to `actions.apply_action`. A new turn advances `turn`, sets
`step` to 1, zeroes the points and calls `actions.start_turn`, which clears the ledger: nothing
here writes the ledger. An eliminated or forfeited gang is skipped in play order.

Rulings made here:
- Play order is fixed at the start of step 2 from the turn's points (ties: fewer digits
  cancelled in the gang's own attack, then the fixed gang order).
- A gang is eliminated when step 2 begins if, on turn 1, its home turf is under 2 hexes, or, on
  any turn, its clubhouse is destroyed and no empty hex of its colour is left to rebuild on. Its
  pawns and clubhouse leave the board; its turf stays (isolated). A forfeit eliminates the same way.
  When one gang is left in play it wins at once.
- Option `to_25` has no turn limit in the book; here the game stops after data.TO_25_TURN_LIMIT
  turns (the largest home turf then wins) so that every game ends.
- Ends: with 4 players a gang with 25+ home-turf hexes at the end of a turn wins (the largest
  if several); after the last turn the largest home turf wins. Ties: most own hexes on the
  board, then a shared win. Eliminated gangs never win.
"""

from __future__ import annotations

from typing import Any, Callable

from rules.errors import IllegalMove, MalformedMove, NotYourTurn
from rules.terrain_vague import actions, data, setup, words, wrestling
from rules.terrain_vague.moves import ACTION_TYPES
from rules.terrain_vague.state import ACT, BUILD, CLUBHOUSE_PLACEMENT, OVER, PICK, WRESTLE, FrozenMap, State
from rules.terrain_vague.territory import home_turf, home_turf_size, own_hex_count
from rules.words import msg

END_STEP = "end_step"
LeaveDuels = Callable[[State, str], State]  # what a leaving gang's duels of a red turn become
END_STEP_MOVE: dict[str, Any] = {"type": END_STEP}

FRAME_TYPES = frozenset(
    {setup.PLACE_HEX, setup.PLACE_CLUBHOUSE, wrestling.CHOOSE_OPPONENT, END_STEP}
    | wrestling.SECRET_TYPES
)

# --- who acts ------------------------------------------------------------------------------


def gangs_to_act(state: State) -> tuple[str, ...]:
    if state.phase == OVER:
        return ()
    if state.phase == WRESTLE:
        return wrestling.seats_to_choose(state)
    return (state.acting,) if state.acting is not None else ()


def legal_moves(state: State, gang: str) -> list[dict[str, Any]]:
    if gang not in gangs_to_act(state):
        return []
    if state.phase == BUILD:
        return setup.build_moves(state, gang)
    if state.phase == CLUBHOUSE_PLACEMENT:
        return setup.clubhouse_moves(state, gang)
    if state.phase == PICK:
        return wrestling.pick_moves(state, gang)
    if state.phase == WRESTLE:
        return wrestling.choice_moves(state, gang)
    return [*actions.legal_actions(state, gang), dict(END_STEP_MOVE)]


def apply(state: State, gang: str, move: dict[str, Any]) -> State:
    kind = move["type"]
    if kind not in FRAME_TYPES and kind not in ACTION_TYPES:
        raise MalformedMove(msg("Terrain Vague has no move {kind!r}", kind=kind), "unknown_move_type")
    if gang not in gangs_to_act(state):
        raise NotYourTurn(msg("{kind}: it is not {gang}'s turn to act", kind=kind, gang=words.gang(gang)), "not_your_turn")
    handler = _HANDLERS.get(state.phase)
    return handler(state, gang, move)


def _expect(move: dict[str, Any], *allowed: str) -> None:
    if move["type"] not in allowed:
        raise IllegalMove(
            msg("{type}: not a move of this phase; expected {allowed}", type=move['type'], allowed=' or '.join(allowed)),
            "wrong_phase",
        )


def _apply_build(state: State, gang: str, move: dict[str, Any]) -> State:
    _expect(move, setup.PLACE_HEX)
    return setup.apply_build(state, gang, move)


def _apply_clubhouse(state: State, gang: str, move: dict[str, Any]) -> State:
    _expect(move, setup.PLACE_CLUBHOUSE)
    state = setup.apply_clubhouse(state, gang, move)
    placer = setup.next_clubhouse_placer(state)
    if placer is not None:
        return state.with_(acting=placer)
    return _after_setup(state)


def _apply_pick(state: State, gang: str, move: dict[str, Any]) -> State:
    _expect(move, wrestling.CHOOSE_OPPONENT)
    state = wrestling.apply_pick(state, gang, move)
    return _after_setup(state) if state.turn == 0 else _begin_step_one(state)


def _apply_choice(state: State, gang: str, move: dict[str, Any]) -> State:
    _expect(move, *wrestling.SECRET_TYPES)
    state = wrestling.apply_choice(state, gang, move)
    return state if state.duels else _begin_step(state, 2)


def _apply_act(state: State, gang: str, move: dict[str, Any]) -> State:
    if move["type"] == END_STEP:
        return end_step(state)
    if move["type"] not in ACTION_TYPES:
        _expect(move, END_STEP, *sorted(ACTION_TYPES))
    return actions.apply_action(state, gang, move)


_HANDLERS = {
    BUILD: _apply_build,
    CLUBHOUSE_PLACEMENT: _apply_clubhouse,
    PICK: _apply_pick,
    WRESTLE: _apply_choice,
    ACT: _apply_act,
}

# --- setup to turn 1 -----------------------------------------------------------------------


def _after_setup(state: State) -> State:
    """After the clubhouses: lone gangs pick their opponents, then turn 1 begins."""
    state = wrestling.settle_automatic_picks(state)
    picker = wrestling.next_picker(state)
    if picker is not None:
        return state.with_(phase=PICK, acting=picker)
    return begin_turn(state)


# --- turns and steps -----------------------------------------------------------------------


def begin_turn(state: State) -> State:
    state = state.with_(
        turn=state.turn + 1,
        step=1,
        duels=(),
        wrestled=(),
        cancelled=FrozenMap(),
        points=FrozenMap({g: 0 for g in state.gangs}),
    )
    return _begin_step_one(actions.start_turn(state))


def _begin_step_one(state: State) -> State:
    """White turns: hideout points. Red turns: picks still owed, then the duels."""
    if not wrestling.is_red_turn(state.turn):
        index = wrestling.hideout_index(state.turn)
        points = state.points.updated({g: data.HIDEOUT[g][index] for g in state.in_play})
        return _begin_step(state, 2, points=points)  # step 1 passes in the same copy
    state = state.with_(step=1)
    state = wrestling.settle_automatic_picks(state)
    picker = wrestling.next_picker(state)
    if picker is not None:
        return state.with_(phase=PICK, acting=picker)
    duels = wrestling.build_duels(state)
    if not duels:
        return _begin_step(state, 2)
    return state.with_(phase=WRESTLE, acting=None, duels=duels)


def play_order(state: State) -> tuple[str, ...]:
    return tuple(
        sorted(
            state.in_play,
            key=lambda g: (-state.points[g], state.cancelled.get(g, 0), data.GANGS.index(g)),
        )
    )


def _begin_step(state: State, step: int, **changes: Any) -> State:
    """The step begins, with `changes` (step 1's points) made in the same copy of the state."""
    if step == 2:
        state = _eliminate_at_step_two(state.with_(phase=ACT, step=step, **changes))
        if state.phase == OVER:
            return state
        return _first_actor(state, order=play_order(state))
    return _first_actor(state, phase=ACT, step=step, **changes)


def _first_actor(state: State, **changes: Any) -> State:
    """The first gang in play of the order acts, with `changes` (the step begun) made in the
    same copy of the state (a search begins steps by the hundred thousand); with none left, the
    turn ends."""
    order = changes.get("order", state.order)
    in_play = state.in_play
    first = next((g for g in order if g in in_play), None)
    if first is None:
        return _end_turn(state.with_(**changes))
    return state.with_(acting=first, **changes)


def end_step(state: State) -> State:
    """The acting gang ends its step; the next gang, the next step, or the end of the turn."""
    in_play = state.in_play
    later = state.order[state.order.index(state.acting) + 1 :]
    following = next((g for g in later if g in in_play), None)
    if following is not None:
        return state.with_(acting=following)
    if state.step < data.STEPS:
        return _begin_step(state, state.step + 1)
    return _end_turn(state)


def last_turn(state: State) -> int:
    return data.TO_25_TURN_LIMIT if state.option("to_25") else data.TURNS


def _end_turn(state: State) -> State:
    state = state.with_(acting=None)
    if state.players == 4:
        big = [g for g in state.in_play if home_turf_size(state, g) >= data.WIN_HOME_TURF]
        if big:
            return finish(state, big, "home_turf_25")
    if state.turn >= last_turn(state):
        return finish(state, list(state.in_play), "largest_home_turf")
    return begin_turn(state)


# --- eliminations and the end --------------------------------------------------------------


def _cannot_go_on(state: State, gang: str) -> bool:
    if state.turn == 1:
        return len(home_turf(state, gang)) < data.MIN_HOME_TURF
    if state.clubhouses.get(gang) is not None:
        return False
    occupied = state.occupants
    return not any(
        turf is not None and turf.gang == gang and h not in occupied
        for h, turf in state.board.items()
    )


def _eliminate_at_step_two(state: State) -> State:
    for gang in state.in_play:
        if _cannot_go_on(state, gang):
            state = eliminate(state, gang)
    return state


def eliminate(state: State, gang: str, leave_duels: LeaveDuels = wrestling.leave_duels) -> State:
    """The gang leaves play: pawns and clubhouse off the board, turf left standing; its duels
    of this red turn go as `leave_duels` rules (rules version 1 kept an older way)."""
    if gang in state.eliminated or state.phase == OVER:
        return state
    state = state.with_(
        eliminated=tuple(g for g in data.GANGS if g in state.eliminated or g == gang),
        pawns=type(state.pawns)({h: p for h, p in state.pawns.items() if p.gang != gang}),
        clubhouses=state.clubhouses.set(gang, None),
        points=state.points.set(gang, 0),
        challenges=type(state.challenges)(
            {k: v for k, v in state.challenges.items() if gang not in (k, v)}
        ),
    )
    state = leave_duels(state, gang)
    if len(state.in_play) <= 1:
        return finish(state, list(state.in_play), "last_gang_standing")
    return state


def forfeit(state: State, gang: str, leave_duels: LeaveDuels = wrestling.leave_duels) -> State:
    """The gang leaves and loses; play goes on without it (with one gang left, that one wins)."""
    if state.phase == OVER or gang in state.eliminated:
        return state
    was_acting = state.acting == gang
    state = eliminate(state, gang, leave_duels)
    if state.phase == OVER:
        return state
    return _resume_after_leaving(state, gang, was_acting)


def _resume_after_leaving(state: State, gang: str, was_acting: bool) -> State:
    if state.phase == ACT and was_acting:
        return end_step(state.with_(acting=gang))
    if state.phase == BUILD and was_acting:
        return setup.next_builder(state)
    if state.phase == CLUBHOUSE_PLACEMENT and was_acting:
        placer = setup.next_clubhouse_placer(state)
        return state.with_(acting=placer) if placer else _after_setup(state)
    if state.phase == PICK:
        return _after_setup(state) if state.turn == 0 else _begin_step_one(state)
    if state.phase == WRESTLE and not state.duels:
        return _begin_step(state, 2)
    return state


def rank_key(state: State, gang: str) -> tuple[int, int]:
    return (home_turf_size(state, gang), own_hex_count(state, gang))


def finish(state: State, contenders: list[str], reason: str) -> State:
    """The game ends; the best of `contenders` by home turf, then own hexes, win (shared on a
    full tie)."""
    best = max((rank_key(state, g) for g in contenders), default=None)
    winners = tuple(g for g in contenders if rank_key(state, g) == best)
    return state.with_(phase=OVER, acting=None, winners=winners, end_reason=reason)
