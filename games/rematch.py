"""A rematch after a finished game: the same game, options and clock, every seat moved on by one
(two players swap seats). A player offers it; another seated player accepts with one click, and
the new game is made by the lobby's own `game_create_seated`, already started. Where every other
seat is a bot, the offer is the whole of it: bots always accept.

The offer is a short-lived note in the cache, not a row: an offer lost (the cache emptied) is
made again with one click, and the game it led to is a game like any other."""

from __future__ import annotations

from typing import Any

from django.core.cache import cache
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from apikit.errors import ServiceError
from apikit.schema import operation
from apikit.views import ScopedApi, validated
from games import selectors
from games.apis import invitation_of
from games.models import GameStatus
from games.services.common import seat_of
from games.services.lobby import game_create_seated

OFFER_KEPT = 7 * 24 * 3600  # seconds an unanswered offer stands


class RematchNotNow(ServiceError):
    """A rematch is for a finished game only."""

    code = "rematch_not_now"


class NoRematchOffered(ServiceError):
    """Accepting a rematch nobody else offered."""

    code = "no_rematch_offered"


def _key(game_id: int) -> str:
    return f"rematch:{game_id}"


def rematch_of(*, game_id: int, user: Any, invitation: str = "") -> dict[str, Any]:
    """What stands: who offered a rematch (a seat, or None) and the new game once made."""
    selectors.game_for(game_id=game_id, user=user, invitation=invitation)
    found = cache.get(_key(game_id)) or {}
    return {"offered_by": found.get("offered_by"), "game": found.get("game")}


def rematch_offer(*, game_id: int, user: Any, invitation: str = "") -> dict[str, Any]:
    """Offer a rematch (or, where another seat offered one already, accept it)."""
    game = selectors.game_for(game_id=game_id, user=user, invitation=invitation)
    seat = seat_of(game, user)
    if game.status != GameStatus.FINISHED:
        raise RematchNotNow(f"game {game_id} is {game.status}: a rematch comes once it is finished")
    found = cache.get(_key(game_id)) or {}
    if found.get("game") is not None:
        return found
    if found.get("offered_by") not in (None, seat):
        return rematch_accept(game_id=game_id, user=user, invitation=invitation)
    offer = {"offered_by": seat, "game": None}
    people = [row for row in game.seat_rows() if row.user_id is not None and row.index != seat]
    if not people:  # only bots to ask: they accept at once
        offer["game"] = _new_game(game, user)
    cache.set(_key(game_id), offer, OFFER_KEPT)
    return offer


def rematch_accept(*, game_id: int, user: Any, invitation: str = "") -> dict[str, Any]:
    """Accept the rematch another seat offered: the new game is made, seats moved on by one."""
    game = selectors.game_for(game_id=game_id, user=user, invitation=invitation)
    seat = seat_of(game, user)
    found = cache.get(_key(game_id)) or {}
    if found.get("game") is not None:
        return found
    if found.get("offered_by") in (None, seat):
        raise NoRematchOffered("nobody else has offered a rematch of this game")
    if not cache.add(f"{_key(game_id)}:making", True, 60):  # two accepts at once: one game
        return cache.get(_key(game_id)) or found
    try:
        offerer = next(row.user for row in game.seat_rows() if row.index == found["offered_by"])
        made = {**found, "game": _new_game(game, offerer)}
        cache.set(_key(game_id), made, OFFER_KEPT)
        return made
    finally:
        cache.delete(f"{_key(game_id)}:making")


def _new_game(game: Any, creator: Any) -> int:
    rows = sorted(game.seat_rows(), key=lambda row: row.index)
    specs = [{"user": row.user} if row.user_id is not None else {"bot": row.bot, "level": row.bot_level} for row in rows]
    moved_on = specs[1:] + specs[:1]  # seat i takes who sat at i + 1: two players swap
    made = game_create_seated(creator=creator, rules_id=game.rules, players=game.players, options=game.options,
                              time_control=game.time_control or None, rated=game.rated, seats=moved_on)
    return made.pk


class RematchAnswer(serializers.Serializer):
    offered_by = serializers.IntegerField(allow_null=True, help_text="the seat that offered a rematch, or null")
    game = serializers.IntegerField(allow_null=True, help_text="the rematch's game, once made")


class RematchInput(serializers.Serializer):
    action = serializers.ChoiceField(choices=["offer", "accept"], help_text="offer a rematch, or accept the one offered")


class RematchApi(ScopedApi):
    """A rematch of a finished game: same game, options and clock, seats moved on by one."""

    permission_classes = (IsAuthenticated,)

    @operation("gameRematch", summary="The rematch on offer after a finished game, and its game once made",
               answer=RematchAnswer, auth="required", game=True, codes=[], scope="read")
    def get(self, request, game_id: int):
        return Response(rematch_of(game_id=game_id, user=request.user, invitation=invitation_of(request)))

    @operation("gameRematchAct", summary="Offer a rematch of a finished game, or accept the one another player offered",
               answer=RematchAnswer, request=RematchInput, body=True, auth="required", game=True,
               codes=["not_a_player", "rematch_not_now", "no_rematch_offered"], scope="play")
    def post(self, request, game_id: int):
        data = validated(RematchInput, request.data)
        act = rematch_offer if data["action"] == "offer" else rematch_accept
        return Response(act(game_id=game_id, user=request.user, invitation=invitation_of(request)))
