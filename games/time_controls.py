"""Time controls: what a game's clock is, and how time is counted. Pure Python, no Django.

A time control (`Game.time_control`, chosen at creation, `{}` for none) is one of:
- `{"type": "step", "seconds": 90}`: a fixed limit for every step or turn a seat must act in.
- `{"type": "correspondence", "days": 3}`: days per move, one of `CORRESPONDENCE_DAYS`.
- `{"type": "bank", "initial_hours": 240, "increment_hours": 36, "cap_hours": 240}`: each seat
  keeps its remaining time; a move adds the increment, never above the cap. Missing numbers
  default to these (Little Golem's).
- Correspondence and bank take `"pause_weekends": true`: Saturdays and Sundays (UTC) do not
  count. They are also the clocks a vacation stops (`STOPPING`); a step clock never stops.

A timeout policy (`Game.timeout_policy`) is one of `POLICIES`: `auto` plays the rules'
`timeout_move`, `bot` seats a stand-in bot, `forfeit` forfeits the seat (`games.timeouts`).
Deadline rows and their enforcement are in `games.deadlines`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from apikit.errors import InvalidInput
from rules.words import msg

STEP, CORRESPONDENCE, BANK = "step", "correspondence", "bank"
CORRESPONDENCE_DAYS = (1, 2, 3, 5, 7, 10, 14)
BANK_DEFAULTS = {"initial_hours": 240, "increment_hours": 36, "cap_hours": 240}
POLICIES = ("auto", "bot", "forfeit")
STOPPING = (CORRESPONDENCE, BANK)  # the controls that vacation and weekends stop
DAY = 86_400.0


def now() -> dt.datetime:
    """The clocks' time (aware, UTC); tests replace it."""
    return dt.datetime.now(dt.timezone.utc)


# --- choosing a time control ---------------------------------------------------------------


def normalize_time_control(raw: Any) -> dict[str, Any]:
    """The stored form of a requested time control; raises InvalidInput naming what is wrong."""
    if raw in (None, {}) or raw == {"type": "none"}:
        return {}
    if not isinstance(raw, dict):
        raise InvalidInput(msg("time_control must be an object with a type"))
    kind = raw.get("type")
    allowed = {STEP: {"seconds"}, CORRESPONDENCE: {"days"}, BANK: set(BANK_DEFAULTS)}
    if not isinstance(kind, str) or kind not in allowed:  # a list or an object cannot be looked up
        raise InvalidInput(msg("time_control type must be step, correspondence, bank or none, not {kind!r}", kind=kind))
    unknown = set(raw) - allowed[kind] - {"type"} - ({"pause_weekends"} if kind in STOPPING else set())
    if unknown:
        raise InvalidInput(
            msg("time_control {kind} has no field {unknown}", kind=kind, unknown=", ".join(sorted(unknown)))
        )
    chosen = {"type": kind, **_numbers_of(kind, raw)}
    if kind in STOPPING:
        pause = raw.get("pause_weekends", False)
        if not isinstance(pause, bool):
            raise InvalidInput(msg("time_control pause_weekends must be true or false"))
        chosen["pause_weekends"] = pause
    return chosen


def _numbers_of(kind: str, raw: dict) -> dict[str, Any]:
    if kind == STEP:
        return {"seconds": _number(raw.get("seconds"), "seconds", 1, DAY, whole=True)}
    if kind == CORRESPONDENCE:
        days = raw.get("days")
        if isinstance(days, bool) or days not in CORRESPONDENCE_DAYS:
            raise InvalidInput(
                msg(
                    "time_control days must be one of {correspondence_days}, not {days!r}",
                    correspondence_days=CORRESPONDENCE_DAYS,
                    days=days,
                )
            )
        return {"days": days}
    numbers = {name: _number(raw.get(name, default), name, 0, 24 * 366) for name, default in BANK_DEFAULTS.items()}
    if not 0 < numbers["initial_hours"] <= numbers["cap_hours"]:
        raise InvalidInput(msg("time_control initial_hours must be above 0 and at most cap_hours"))
    return numbers


def _number(value: Any, name: str, low: float, high: float, whole: bool = False) -> Any:
    kinds = (int,) if whole else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds) or not low <= value <= high:
        raise InvalidInput(
            msg(
                "time_control {name} must be a number from {low} to {high:g}, not {value!r}",
                name=name,
                low=low,
                high=high,
                value=value,
            )
        )
    return value


def normalize_policy(raw: Any) -> str:
    if raw in (None, ""):
        return "auto"
    if raw not in POLICIES:
        raise InvalidInput(
            msg("timeout_policy must be one of {policies}, not {raw!r}", policies=", ".join(POLICIES), raw=raw)
        )
    return raw


# --- what a control means -------------------------------------------------------------------


def stops(control: dict[str, Any]) -> bool:
    """Whether a vacation stops this control's clocks."""
    return control.get("type") in STOPPING


def pauses_weekends(control: dict[str, Any]) -> bool:
    return bool(control.get("pause_weekends")) and stops(control)


def budget_seconds(control: dict[str, Any], bank_seconds: float | None) -> float:
    """The time a seat has for the move it must make now (`bank_seconds`: what its bank holds,
    None before its first bank move)."""
    if control["type"] == STEP:
        return float(control["seconds"])
    if control["type"] == CORRESPONDENCE:
        return control["days"] * DAY
    return bank_seconds if bank_seconds is not None else control["initial_hours"] * 3600.0


def bank_after(control: dict[str, Any], left: float, *, acted: bool) -> float:
    """What a bank seat keeps: the time it did not use, plus the increment when it acted (a
    timeout too), never above the cap."""
    if acted:
        return min(control["cap_hours"] * 3600.0, left + control["increment_hours"] * 3600.0)
    return left


# --- counted time: weekends may not count --------------------------------------------------


def _weekend(moment: dt.datetime) -> bool:
    return moment.weekday() >= 5


def _midnight_after(moment: dt.datetime, days_ahead: int) -> dt.datetime:
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    return day + dt.timedelta(days=days_ahead)


def _next_change(moment: dt.datetime) -> dt.datetime:
    """The next instant where weekend turns to weekday or back (UTC midnight)."""
    if _weekend(moment):
        return _midnight_after(moment, 7 - moment.weekday())  # Monday
    return _midnight_after(moment, 5 - moment.weekday())  # Saturday


def add_counted(start: dt.datetime, seconds: float, pause_weekends: bool) -> dt.datetime:
    """The instant when `seconds` of counted time have passed since `start`."""
    if not pause_weekends:
        return start + dt.timedelta(seconds=seconds)
    moment, left = start.astimezone(dt.timezone.utc), seconds
    while True:
        change = _next_change(moment)
        if not _weekend(moment):
            span = (change - moment).total_seconds()
            if left <= span:
                return moment + dt.timedelta(seconds=left)
            left -= span
        moment = change


def counted_between(start: dt.datetime, end: dt.datetime, pause_weekends: bool) -> float:
    """Counted seconds from `start` to `end` (0 if `end` is earlier)."""
    if end <= start:
        return 0.0
    if not pause_weekends:
        return (end - start).total_seconds()
    moment, total = start.astimezone(dt.timezone.utc), 0.0
    while moment < end:
        change = min(_next_change(moment), end)
        if not _weekend(moment):
            total += (change - moment).total_seconds()
        moment = change
    return total
