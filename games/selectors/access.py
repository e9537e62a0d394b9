"""Which games a caller may see (public ones; a private one with a seat, as its creator, as an
invited account or with its invitation link's key), and the caller's seat in one."""

from __future__ import annotations

import secrets
from typing import Any

from django.db.models import Q

from games import errors, stores
from games.models import Game, GameStatus, Invitation, InvitationStatus, Seat
from rules.words import msg


def game_get(*, game_id: int) -> Game:
    """The game with its seats (and their accounts) and deadline rows: the store's one read."""
    game = stores.current().game_read(game_id)
    if game is None:
        raise errors.GameNotFound(msg("there is no game {id}", id=game_id))
    return game


def game_owner_id(*, game_id: int) -> int | None:
    """The account that created the game (whose share of the bot workers its bots use)."""
    return Game.objects.filter(pk=game_id).values_list("created_by_id", flat=True).first()


INVITATION_KEY_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def check_invitation(invitation: Any) -> None:
    """Refuse (InvalidInvitation, 400) what cannot be an invitation key: keys are URL-safe ASCII
    (`secrets.token_urlsafe`). Told before any game is looked up, so it says nothing of one."""
    if not isinstance(invitation, str) or len(invitation) > 64 or not INVITATION_KEY_CHARACTERS.issuperset(invitation):
        raise errors.InvalidInvitation(msg("an invitation key has at most 64 letters, digits, - and _"))


def invitation_matches(invitation: Any, key: str) -> bool:
    """Whether a well-formed `invitation` is the game's `key`, compared in constant time."""
    if not invitation:
        return False
    check_invitation(invitation)
    return bool(key) and secrets.compare_digest(invitation.encode(), key.encode())


def game_for(*, game_id: int, user: Any, invitation: str = "") -> Game:
    """The game, if the caller may see it: any public game; a private one only with a seat, as its
    creator, as an invited account (not declined), or with its invitation link's key. Otherwise
    GameNotFound, as if there were none (a private game's existence is not told)."""
    if invitation:
        check_invitation(invitation)
    game = game_get(game_id=game_id)
    if game.private and not may_see(game=game, user=user, invitation=invitation):
        raise errors.GameNotFound(msg("there is no game {id}", id=game_id))
    return game


def may_see(*, game: Game, user: Any, invitation: str = "") -> bool:
    if not game.private:
        return True
    if invitation_matches(invitation, game.invitation_key):
        return True
    if not user.is_authenticated:
        return False
    if game.created_by_id == user.pk or any(seat.user_id == user.pk for seat in game.seat_rows()):
        return True
    return Invitation.objects.filter(game=game, user=user, status=InvitationStatus.PENDING).exists()


def private_game_viewers(*, game_id: int) -> set[int] | None:
    """The accounts that may see a private game now (its creator, its seated players, its pending
    invitees), for a notice sent without a request (a webhook); None for a public game."""
    game = Game.objects.filter(pk=game_id).values("private", "created_by_id").first()
    if game is None or not game["private"]:
        return None
    seated = Seat.objects.filter(game_id=game_id, user__isnull=False).values_list("user_id", flat=True)
    invited = Invitation.objects.filter(game_id=game_id, status=InvitationStatus.PENDING).values_list("user_id", flat=True)
    return {game["created_by_id"], *seated, *invited}


def visible_games(user: Any) -> Q:
    """The games a list may show the caller: the public ones and the private ones it may see."""
    if not user.is_authenticated:
        return Q(private=False)
    invited = Invitation.objects.filter(user=user, status=InvitationStatus.PENDING).values("game_id")
    return Q(private=False) | Q(created_by=user) | Q(seats__user=user) | Q(pk__in=invited)


def invitations_of(*, user: Any) -> list[dict[str, Any]]:
    """The private games the account is invited to and has not declined, open ones first."""
    rows = Invitation.objects.filter(user=user, status=InvitationStatus.PENDING).select_related("game", "game__created_by")
    return [
        {"game": row.game_id, "rules": row.game.rules, "status": row.game.status, "by": row.game.created_by.username,
         "created_at": row.created_at}
        for row in sorted(rows, key=lambda row: (row.game.status != GameStatus.OPEN, -row.game_id))
    ]


def invitation_notices_of(*, user: Any, known: tuple[int, ...] = ()) -> list[dict[str, Any]]:
    """The invitations the account's feed follows: those pending to it or from it (its private
    games), and those among `known` whatever became of them, each as
    `{"invitation", "game", "rules", "invitee", "inviter", "status"}`."""
    mine = Q(user=user) | Q(game__created_by=user)
    rows = Invitation.objects.filter(mine).filter(Q(status=InvitationStatus.PENDING) | Q(pk__in=list(known)))
    return [invitation_notice(row) for row in rows.select_related("game", "game__created_by", "user").order_by("pk")]


def invitation_notice(row: Invitation) -> dict[str, Any]:
    return {"invitation": row.pk, "game": row.game_id, "rules": row.game.rules, "invitee": row.user.username,
            "inviter": row.game.created_by.username if row.game.created_by else None, "status": row.status}


def invitation_notice_get(*, game_id: int, invitee_id: int) -> dict[str, Any] | None:
    row = Invitation.objects.select_related("game", "game__created_by", "user").filter(
        game_id=game_id, user_id=invitee_id).first()
    return invitation_notice(row) if row else None


def seat_of(*, game: Game, user: Any) -> int | None:
    if not user.is_authenticated:
        return None
    return next((seat.index for seat in game.seat_rows() if seat.user_id == user.pk), None)


def games_hidden_from(*, user: Any, game_ids: Any) -> set[int]:
    """Of `game_ids`, the private games `user` may not see (a profile's history leaves them out)."""
    private = Game.objects.filter(pk__in=game_ids, private=True)
    return set(private.exclude(pk__in=Game.objects.filter(visible_games(user)).values("pk")).values_list("pk", flat=True))


def has_taken_a_seat(*, user: Any) -> bool:
    """Whether the account ever sat at a game (a bot account must never have played as a person)."""
    return Seat.objects.filter(user=user).exists()
