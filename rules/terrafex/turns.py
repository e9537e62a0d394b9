"""Turn flow: which actions are open, applying one, ending the turn, and when the game ends.

A turn is the four actions, one per colour, in any order. An action whose colour has no legal
option is skipped; the turn ends once no untaken action has one (an action unavailable earlier in
the turn may be taken later if it became available). A turn with no legal action at all passes.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

from rules.errors import IllegalMove, MalformedMove
from rules.terrafex import actions, glacier, words
from rules.terrafex.board import Work, has_glacier
from rules.terrafex.data import ACTIONS, FOREST, MOUNTAIN, QUIET_TURN_LIMIT, SIZE_NAMES
from rules.terrafex.moves import read_choice, read_direction, read_placements, read_size, read_square
from rules.terrafex.state import State
from rules.values import evolve
from rules.words import msg

OPTIONS: dict[str, Callable[[Work], Iterable[dict[str, Any]]]] = {
    "forest": actions.forest_moves,
    "mountain": actions.mountain_moves,
    "fire": actions.fire_moves,
    "glacier": glacier.glacier_moves,
}


def work_of(state: State) -> Work:
    return Work(state.board, state.pool, state.pit)


def is_over(state: State) -> bool:
    """Asked by `to_act`, `outcome` and the turn's end alike, so worked out once a state (a state
    never changes; `evolve` leaves the memo behind with the old value)."""
    memo = state.__dict__
    over = memo.get("_over")
    if over is None:
        over = memo["_over"] = (
            state.forfeited is not None
            or state.quiet_turns >= QUIET_TURN_LIMIT
            or not has_glacier(state.board)
        )
    return over


def actor(state: State) -> int:
    """Who decides now: the opponent while a fire is in hand, else the mover."""
    return 1 - state.mover if state.fire_in_hand else state.mover


def moves_for(state: State) -> list[dict[str, Any]]:
    if state.fire_in_hand:
        return list(actions.placement_moves(_work(state), state.fire_in_hand))
    moves: list[dict[str, Any]] = []
    for action in ACTIONS:
        if action in state.done:
            continue
        if action in MEMOISED:
            # Copies: the memo's moves stay as listed whatever a caller does with these.
            moves += [dict(move) for move in options(state, action)]
        else:
            moves += OPTIONS[action](_work(state))
    return moves


# The actions whose options cost a search (every fire size tried, every glacier move resolved):
# listed once a state, since the turn's end asks whether any is open and the legal moves then
# list them. Forest and mountain options are cheap to list again and cheaper still to find one.
MEMOISED = frozenset({"fire", "glacier"})


def options(state: State, action: str) -> tuple[dict[str, Any], ...]:
    """The action's legal options, listed once a state (a state never changes; `evolve` leaves
    the memo behind with the old value)."""
    memo = state.__dict__.setdefault("_options", {})
    found = memo.get(action)
    if found is None:
        found = memo[action] = tuple(OPTIONS[action](_work(state)))
    return found


def _work(state: State) -> Work:
    """The state's board and supplies as a Work for the listers, which only read it."""
    memo = state.__dict__
    work = memo.get("_work")
    if work is None:
        work = memo["_work"] = work_of(state)
    return work


def _has_option(state: State, action: str) -> bool:
    if action in MEMOISED:
        return bool(options(state, action))
    return OPEN[action](_work(state))


OPEN: dict[str, Callable[[Work], bool]] = {
    "forest": actions.forest_open,
    "mountain": actions.mountain_open,
}


def _any_action_open(state: State) -> bool:
    return any(_has_option(state, action) for action in ACTIONS if action not in state.done)


# --- applying one decision -----------------------------------------------------------------------


def apply_move(state: State, move: dict[str, Any]) -> State:
    kind = move["type"]
    if state.fire_in_hand:
        if kind != "place_fire":
            if kind not in ACTIONS:
                raise MalformedMove(msg("unknown Terrafex move type {kind!r}", kind=kind), "unknown_move_type")
            message = msg("the {size_names} fire in hand must be placed first", size_names=SIZE_NAMES[state.fire_in_hand])
            raise IllegalMove(message, "fire_in_hand")
        return _place_fire(state, move)
    if kind == "place_fire":
        raise IllegalMove(msg("there is no fire in hand to place"), "no_fire_in_hand")
    if kind not in ACTIONS:
        raise MalformedMove(msg("unknown Terrafex move type {kind!r}", kind=kind), "unknown_move_type")
    if kind in state.done:
        raise IllegalMove(msg("the {kind} action has already been taken this turn", kind=words.action(kind)), "action_taken")
    return APPLIERS[kind](state, move)


def _forest(state: State, move: dict[str, Any]) -> State:
    action = read_choice(move, "action", ("grow", "spread"))
    work = work_of(state)
    if action == "grow":
        actions.grow(work, read_square(move, "at"), FOREST)
    else:
        actions.play_small(work, read_square(move, "to"), FOREST, spread=True)
    return finish_action(state, work, "forest")


def _mountain(state: State, move: dict[str, Any]) -> State:
    action = read_choice(move, "action", ("start", "grow"))
    work = work_of(state)
    if action == "grow":
        actions.grow(work, read_square(move, "at"), MOUNTAIN)
    else:
        actions.play_small(work, read_square(move, "to"), MOUNTAIN, spread=False)
    return finish_action(state, work, "mountain")


def _fire(state: State, move: dict[str, Any]) -> State:
    size = read_size(move)
    work = work_of(state)
    actions.take_fire(work, size)
    return evolve(state, pool=tuple(work.pool), fire_in_hand=size)


def _place_fire(state: State, move: dict[str, Any]) -> State:
    square = read_square(move, "to")
    work = work_of(state)
    actions.place_fire(work, square, state.fire_in_hand)
    return finish_action(evolve(state, fire_in_hand=0), work, "fire")


def _glacier(state: State, move: dict[str, Any]) -> State:
    source = read_square(move, "from")
    direction = read_direction(move)
    place = read_placements(move)
    problem = glacier.move_problem(state.board, source, direction)
    if problem is not None:
        raise problem
    work = work_of(state)
    size, forest, target = glacier.start_move(work, source, direction)
    glacier.resolve(work, size, forest, source, target, direction, place)
    return finish_action(state, work, "glacier")


APPLIERS = {"forest": _forest, "mountain": _mountain, "fire": _fire, "glacier": _glacier}


# --- after an action -----------------------------------------------------------------------------


def finish_action(state: State, work: Work, action: str) -> State:
    after = evolve(
        state,
        board=tuple(work.board),
        pool=tuple(work.pool),
        pit=tuple(work.pit),
        done=state.done + (action,),
        melted=state.melted or work.melted,
    )
    if is_over(after) or _any_action_open(after):
        return after
    return next_turn(after)


def next_turn(state: State) -> State:
    """Hand over; a turn with nothing to do passes at once. The quiet-turn limit ends the loop."""
    while True:
        quiet = 0 if state.melted else state.quiet_turns + 1
        state = evolve(
            state, mover=1 - state.mover, turn=state.turn + 1, done=(), melted=False,
            quiet_turns=quiet,
        )
        if is_over(state) or _any_action_open(state):
            return state


def begin(state: State) -> State:
    """The first turn, passed over if White has nothing to do (possible only in custom layouts)."""
    return state if is_over(state) or _any_action_open(state) else next_turn(state)
