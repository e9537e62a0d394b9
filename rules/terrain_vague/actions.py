"""Pawn actions of steps 2-5 (stub; being built by engineer B)."""

from __future__ import annotations

from typing import Any

from rules.base import MalformedMove

ACTION_TYPES: frozenset[str] = frozenset()


def legal_actions(state: Any, gang: str) -> list[dict[str, Any]]:
    return []


def apply_action(state: Any, gang: str, move: dict[str, Any]) -> Any:
    raise MalformedMove(f"unknown move type {move.get('type')!r}", "unknown_move_type")


def start_turn(state: Any) -> Any:
    return state
