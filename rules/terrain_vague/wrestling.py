"""Indian wrestling: step 1 of the red turns (3, 6, 9, 12), a simultaneous secret step.

Each sworn pair fights two duels, each gang attacking once. The attacker secretly chooses as many
digits as its red hideout number (values 1-8, a value at most three times); the defender secretly
chooses as many bars as its red number (values 1-8, each at most once). A bar cancels every digit
of its value; the attacker's action points for the turn are the sum of the digits left.

The duels run one after another; in each, both gangs choose at once (`to_act` holds both). A
choice is stored with a salt drawn from the state's Rng; everyone sees only its commitment,
`rules.values.commitment(sorted tiles, salt)`, until both are in, when both are revealed with
their salts. Moves: `{"type": "choose_digits", "digits": [5, 5, 7]}` for the attacker and
`{"type": "choose_bars", "bars": [5, 7, 8]}` for the defender (tiles in any order).

Opponents: with 2 gangs, the two duel each other with their own red numbers. A gang without a
sworn enemy in play (the lone gang with 3 players, or one whose enemy was eliminated) picks an
opponent (`{"type": "choose_opponent", "gang": ...}`); in its duel the opponent defends with the
red number of the picker's sworn enemy. Rulings:
- The opponent's own attack against the picker would earn it nothing (the substitute "receives
  no benefits"), so that duel is not fought at all.
- Each duel takes its tiles from the full pool (the tiles go back between duels).
- The pick is made at setup with 3 gangs, and again at the start of a red turn whenever the
  picked gang has been eliminated; with a single candidate it is made automatically.
- A gang leaving mid-wrestling (RULINGS, `leave_duels`): attacks on it are still fought, its own
  are called off; bars it had not chosen are drawn from the seed's timeout stream and committed
  like any choice, so nobody (the leaver included) sees them before their duel resolves.
"""

from __future__ import annotations

from functools import cache, lru_cache
from itertools import combinations, combinations_with_replacement
from typing import Any

from rules import fields
from rules.errors import IllegalMove, MalformedMove
from rules.rng import Rng
from rules.terrain_vague import data, words
from rules.terrain_vague.state import Choice, Duel, State
from rules.values import commitment, evolve
from rules.words import msg

CHOOSE_DIGITS = "choose_digits"
CHOOSE_BARS = "choose_bars"
CHOOSE_OPPONENT = "choose_opponent"
SECRET_TYPES = frozenset({CHOOSE_DIGITS, CHOOSE_BARS})


def red_number(gang: str, turn: int) -> int:
    return data.HIDEOUT[gang][hideout_index(turn)]


def hideout_index(turn: int) -> int:
    """Turns past 12 (option `to_25`) start the hideout again at turn 1."""
    return (turn - 1) % data.TURNS


def is_red_turn(turn: int) -> bool:
    return hideout_index(turn) + 1 in data.RED_TURNS


# --- the tile choices ----------------------------------------------------------------------


@lru_cache(maxsize=None)
def digit_choices(count: int) -> tuple[tuple[int, ...], ...]:
    """Every multiset of `count` digits a gang may choose (at most three of a value)."""
    return tuple(
        combo
        for combo in combinations_with_replacement(data.TILE_VALUES, count)
        if all(combo.count(v) <= data.DIGIT_COPIES for v in set(combo))
    )


@lru_cache(maxsize=None)
def bar_choices(count: int) -> tuple[tuple[int, ...], ...]:
    return tuple(combinations(data.TILE_VALUES, count))


def score(digits: tuple[int, ...], bars: tuple[int, ...]) -> tuple[int, int]:
    """(points, digits cancelled): each bar cancels every digit of equal value."""
    left = [d for d in digits if d not in bars]
    return sum(left), len(digits) - len(left)


# --- opponents -----------------------------------------------------------------------------


def needs_opponent(state: State, gang: str) -> bool:
    if state.players == 2 or state.sworn_enemy(gang) is not None:
        return False
    return state.challenges.get(gang) not in state.in_play


def opponent_candidates(state: State, gang: str) -> tuple[str, ...]:
    return tuple(g for g in state.in_play if g != gang)


def next_picker(state: State) -> str | None:
    """The first gang (fixed order) that must pick a wrestling opponent now."""
    return next((g for g in state.in_play if needs_opponent(state, g)), None)


def settle_automatic_picks(state: State) -> State:
    """Make every pick that has a single candidate, in gang order."""
    while (picker := next_picker(state)) is not None:
        candidates = opponent_candidates(state, picker)
        if len(candidates) != 1:
            break
        state = state.with_(challenges=state.challenges.set(picker, candidates[0]))
    return state


def pick_moves(state: State, gang: str) -> list[dict[str, Any]]:
    return [{"type": CHOOSE_OPPONENT, "gang": g} for g in opponent_candidates(state, gang)]


def apply_pick(state: State, gang: str, move: dict[str, Any]) -> State:
    chosen = move.get("gang")
    if not isinstance(chosen, str) or chosen not in data.GANGS:
        raise MalformedMove(msg("choose_opponent needs a gang name, not {chosen!r}", chosen=chosen), "bad_gang")
    if chosen not in opponent_candidates(state, gang):
        raise IllegalMove(
            msg("choose_opponent: {chosen} is not a gang in play other than {gang}", chosen=chosen, gang=words.gang(gang)), "bad_opponent"
        )
    return state.with_(challenges=state.challenges.set(gang, chosen))


# --- duels ---------------------------------------------------------------------------------


def build_duels(state: State) -> tuple[Duel, ...]:
    """This red turn's duels: each sworn pair (and with 2 gangs the pair) both ways, then each
    lone gang's attack on its pick."""
    turn, duels = state.turn, []
    for a, b in _duelling_pairs(state):
        duels.append(Duel(a, b, red_number(a, turn), red_number(b, turn)))
        duels.append(Duel(b, a, red_number(b, turn), red_number(a, turn)))
    if state.players > 2:
        for picker in state.in_play:
            target = state.challenges.get(picker)
            if state.sworn_enemy(picker) is None and target in state.in_play:
                substitute_number = red_number(data.SWORN_ENEMY[picker], turn)
                duels.append(Duel(picker, target, red_number(picker, turn), substitute_number))
    return tuple(duels)


def _duelling_pairs(state: State) -> list[tuple[str, str]]:
    """Pairs fighting both ways: the two gangs of a 2-player game, else the sworn pairs."""
    in_play = state.in_play
    if state.players == 2:
        return [(in_play[0], in_play[1])] if len(in_play) == 2 else []
    pairs = [(g, state.sworn_enemy(g)) for g in in_play]
    return [(g, e) for g, e in pairs if e is not None and in_play.index(g) < in_play.index(e)]


def seats_to_choose(state: State) -> tuple[str, ...]:
    """Gangs of the current duel that have not chosen yet."""
    if not state.duels:
        return ()
    duel = state.duels[0]
    waiting = []
    if duel.attack is None:
        waiting.append(duel.attacker)
    if duel.defence is None:
        waiting.append(duel.defender)
    return tuple(waiting)


def choice_moves(state: State, gang: str) -> list[dict[str, Any]]:
    if gang not in seats_to_choose(state):
        return []
    duel = state.duels[0]
    if gang == duel.attacker:
        choices = digit_choices(duel.attack_number)
        return [{"type": CHOOSE_DIGITS, "digits": [*c]} for c in choices]
    return [{"type": CHOOSE_BARS, "bars": [*c]} for c in bar_choices(duel.defence_number)]


def _read_tiles(move: dict[str, Any], key: str) -> tuple[int, ...]:
    return tuple(sorted(fields.whole_numbers(move, key, "bad_tiles")))


@cache
def _allowed(attacking: bool, count: int) -> frozenset[tuple[int, ...]]:
    """The choices of `count` digits (attacking) or bars, as a set: a choice is looked up among
    up to 728 at every choice a search makes."""
    return frozenset(digit_choices(count) if attacking else bar_choices(count))


def _check_tiles(move_type: str, tiles: tuple[int, ...], allowed: frozenset[tuple[int, ...]]) -> None:
    if tiles in allowed:
        return
    count = len(next(iter(allowed))) if allowed else 0  # every choice holds `count` tiles
    if len(tiles) != count:
        raise IllegalMove(
            msg("{move_type}: choose exactly {number} tiles, not {tiles_count}", move_type=move_type, number=count, tiles_count=len(tiles)), "wrong_tile_count"
        )
    raise IllegalMove(
        msg("{move_type}: tiles are 1-8, digits at most three of a value, bars one of each", move_type=move_type),
        "unavailable_tile",
    )


def apply_choice(state: State, gang: str, move: dict[str, Any]) -> State:
    """Record a gang's secret choice; resolve the duel once both are in."""
    duel = state.duels[0]
    attacking = gang == duel.attacker
    expected = CHOOSE_DIGITS if attacking else CHOOSE_BARS
    if move["type"] != expected:
        raise IllegalMove(msg("{type}: in this duel {gang} must {expected}", type=move['type'], gang=words.gang(gang), expected=expected), "wrong_duel_role")
    key = "digits" if attacking else "bars"
    tiles = _read_tiles(move, key)
    _check_tiles(move["type"], tiles, _allowed(attacking, duel.attack_number if attacking else duel.defence_number))
    salt, rng = state.rng.salt()
    choice = Choice(tiles, salt, commitment(list(tiles), salt))
    duel = evolve(duel, **{"attack" if attacking else "defence": choice})
    if duel.resolved:
        return _resolved(state, duel, rng=rng)
    return state.with_(rng=rng, duels=(duel, *state.duels[1:]))


def _resolve_current(state: State) -> State:
    return _resolved(state, state.duels[0])


def _resolved(state: State, duel: Duel, **changes: Any) -> State:
    """The current duel, as `duel` (both choices in), scored and moved to the resolved ones, with
    `changes` made in the same copy of the state (a search resolves duels by the ten thousand)."""
    points, cancelled = score(duel.attack.tiles, duel.defence.tiles)
    if duel.scores:
        changes["points"] = state.points.set(duel.attacker, points)
        changes["cancelled"] = state.cancelled.set(duel.attacker, cancelled)
    return state.with_(duels=state.duels[1:], wrestled=(*state.wrestled, duel), **changes)


def leave_duels(state: State, gang: str) -> State:
    """A gang leaves the game (resigns or forfeits) with duels of this red turn still to fight.

    Its own attacks are called off (a choice its defender had committed is dropped unseen).
    Every attack on it is still fought: bars it had chosen stand, and the bars it had not chosen
    yet are drawn now, as for a choice not made in time, and committed like any choice, so they
    stay secret until their duel resolves. If that completes the current duel, it resolves now.
    """
    kept, rng = [], state.rng
    for duel in state.duels:
        if duel.attacker == gang:
            continue
        if duel.defender == gang and duel.defence is None:
            choice, rng = _drawn_choice(rng, gang, bar_choices(duel.defence_number))
            duel = evolve(duel, defence=choice)
        kept.append(duel)
    state = state.with_(rng=rng, duels=tuple(kept))
    while state.duels and state.duels[0].resolved:
        state = _resolve_current(state)
    return state


def drop_gang_duels(state: State, gang: str) -> State:
    """Rules version 1's way, kept to fold the games played under it: a gang leaving the game
    leaves its unresolved duels too, the attacks on it included (their attackers lose them)."""
    kept = tuple(d for d in state.duels if gang not in (d.attacker, d.defender))
    return state.with_(duels=kept)


def _drawn_choice(
    rng: Rng, gang: str, allowed: tuple[tuple[int, ...], ...]
) -> tuple[Choice, Rng]:
    """Tiles at random from the seed (the timeout stream, as `random_choice`), salted from the
    state's Rng like a chosen move."""
    index, _ = _timeout_stream(rng, gang).below(len(allowed))
    tiles = allowed[index]
    salt, rng = rng.salt()
    return Choice(tiles, salt, commitment(list(tiles), salt)), rng


def _timeout_stream(rng: Rng, gang: str) -> Rng:
    return Rng(f"{rng.seed}:timeout:{gang}", rng.drawn)


def random_choice(state: State, gang: str) -> dict[str, Any]:
    """A timed-out gang's choice, at random from the seed (a stream apart from the salts')."""
    moves = choice_moves(state, gang)
    index, _ = _timeout_stream(state.rng, gang).below(len(moves))
    return moves[index]


def find_choice(state: State, gang: str) -> Choice | None:
    """The gang's latest choice: in the current duel, else in the last resolved one."""
    for duel in (*state.duels[:1], *reversed(state.wrestled)):
        if duel.attacker == gang and duel.attack is not None:
            return duel.attack
        if duel.defender == gang and duel.defence is not None:
            return duel.defence
    return None
