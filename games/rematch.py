"""A rematch after a finished game: the same game, options and clock, every seat moved on by one
(two players swap seats). A player offers it; another seated player accepts with one click, and
the new game is made by the lobby's own `game_create_seated`, already started. Where every other
seat is a bot, the offer is the whole of it: bots always accept.

The offer is a row (`RematchOffer`), so every process sees it and it outlives a restart or an
emptied cache; not an event, since the finished game's log is closed (docs/decisions/0022).
Accepting locks the row, so two accepts at once, in any processes, make one game."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from apikit.errors import ServiceError
from apikit.schema import operation
from apikit.views import ScopedApi, invitation_of, validated
from games import selectors
from games.models import GameStatus, RematchOffer
from games.services.common import seat_of
from games.services.lobby import game_create_seated
from rules.words import msg

OFFER_KEPT = timedelta(days=7)  # how long an unanswered offer stands


class RematchNotNow(ServiceError):
    """A rematch is for a finished game only."""

    code = "rematch_not_now"


class NoRematchOffered(ServiceError):
    """Accepting a rematch nobody else offered."""

    code = "no_rematch_offered"


def _answer(offer: RematchOffer | None) -> dict[str, Any]:
    if offer is None:
        return {"offered_by": None, "game": None}
    return {"offered_by": offer.offered_by, "game": offer.made_id}


def _standing(rows: Any) -> RematchOffer | None:
    """The offer that stands: one that made its game, or one still within its time."""
    offer = rows.first()
    if offer is not None and offer.made_id is None and offer.offered_at < timezone.now() - OFFER_KEPT:
        return None
    return offer


def rematch_of(*, game_id: int, user: Any, invitation: str = "") -> dict[str, Any]:
    """What stands: who offered a rematch (a seat, or None) and the new game once made."""
    selectors.game_for(game_id=game_id, user=user, invitation=invitation)
    return _answer(_standing(RematchOffer.objects.filter(game_id=game_id)))


def rematch_offer(*, game_id: int, user: Any, invitation: str = "") -> dict[str, Any]:
    """Offer a rematch (or, where another seat offered one already, accept it)."""
    game = selectors.game_for(game_id=game_id, user=user, invitation=invitation)
    seat = seat_of(game, user)
    if game.status != GameStatus.FINISHED:
        raise RematchNotNow(msg("game {game_id} is {status}: a rematch comes once it is finished", game_id=game_id, status=game.status))
    people = [row for row in game.seat_rows() if row.user_id is not None and row.index != seat]
    with transaction.atomic():
        offer = _standing(RematchOffer.objects.select_for_update().filter(game_id=game_id))
        if offer is not None and (offer.made_id is not None or offer.offered_by == seat):
            return _answer(offer)
        if offer is not None:  # another seat offered first: this is an accept
            return _accept_locked(game, offer, seat)
        try:
            with transaction.atomic():  # a savepoint: an offer made at the same moment elsewhere
                offer, _ = RematchOffer.objects.update_or_create(
                    game_id=game_id, defaults={"offered_by": seat, "made": None, "offered_at": timezone.now()})
        except IntegrityError:
            return rematch_offer(game_id=game_id, user=user, invitation=invitation)
        if not people:  # only bots to ask: they accept at once
            offer.made_id = _new_game(game, user)
            offer.save(update_fields=["made"])
        return _answer(offer)


def rematch_accept(*, game_id: int, user: Any, invitation: str = "") -> dict[str, Any]:
    """Accept the rematch another seat offered: the new game is made, seats moved on by one."""
    game = selectors.game_for(game_id=game_id, user=user, invitation=invitation)
    seat = seat_of(game, user)
    with transaction.atomic():
        offer = _standing(RematchOffer.objects.select_for_update().filter(game_id=game_id))
        if offer is None or (offer.made_id is None and offer.offered_by == seat):
            raise NoRematchOffered(msg("nobody else has offered a rematch of this game"))
        return _accept_locked(game, offer, seat)


def _accept_locked(game: Any, offer: RematchOffer, seat: int) -> dict[str, Any]:
    """Under the offer's row lock: the game made once, whoever asks second finds it."""
    if offer.made_id is None:
        offerer = next(row.user for row in game.seat_rows() if row.index == offer.offered_by)
        offer.made_id = _new_game(game, offerer)
        offer.save(update_fields=["made"])
    return _answer(offer)


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
