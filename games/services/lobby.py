"""Games before and around play: creating one, taking seats (people and bots), a stand-in bot
taking over a timed-out seat and its owner taking it back."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

import bots
import rules
from accounts import selectors as account_selectors
from accounts.errors import NotABotAccount
from apikit.errors import InvalidInput
from games import announce, selectors, signals, time_controls, writer
from games.errors import AlreadySeated, GameNotFound, GameNotOpen, NotTheCreator
from games.models import EventKind, Game, GameStatus, Invitation, InvitationStatus, Seat
from games.selectors.events import STAND_IN, STAND_IN_LEFT
from games.services.common import hide_from_strangers, seat_of
from games.words import state_said
from rules.words import msg

DEFAULT_TIME_CONTROL = {"type": "correspondence", "days": 14}


def new_seed() -> str:
    """The secret seed of a new game: 256 bits, published only when the game ends."""
    return secrets.token_hex(32)


@transaction.atomic
def game_create(
    *,
    creator: Any,
    rules_id: str,
    players: int,
    options: dict | None,
    bot_seats: list[dict] | None = None,
    time_control: dict | None = None,
    timeout_policy: str | None = None,
    creator_plays: bool = True,
    private: bool = False,
    invitees: list[str] | None = None,
    timeouts_to_resign: int = 3,
    rated: bool = False,
) -> Game:
    """A new game; the creator takes seat 0 and `bot_seats` ({seat, bot, level?}) their seats.
    With `creator_plays=False` the creator only watches and bots may take seat 0 too (a game of
    bots only). `time_control` and `timeout_policy` are described in `games.time_controls`."""
    game_rules = rules.get(rules_id)
    chosen = game_rules.normalize_options(players, options)
    bot_seats = _checked_bot_seats(bot_seats or [], players, first=1 if creator_plays else 0)
    control = _time_control_or_default(time_control, private)
    policy = time_controls.normalize_policy(timeout_policy)
    invited = _invitees(creator, invitees or [])
    if invited and not private:
        raise InvalidInput(msg("invitees are for private games: set private to true"), fields={"invitees": ["needs private"]})
    if isinstance(timeouts_to_resign, bool) or not isinstance(timeouts_to_resign, int) or not 0 <= timeouts_to_resign <= 10:
        raise InvalidInput(msg("timeouts_to_resign is a whole number from 0 (never) to 10"),
                           fields={"timeouts_to_resign": ["0 to 10"]})
    if rated and not control:
        raise InvalidInput(msg("a rated game needs a time control: without one a seat could stall it for ever"),
                           fields={"rated": ["needs a time control"]})
    if rated and private:
        raise InvalidInput(msg("a private game is never rated: a rating is shown to everyone, and any it moved would tell strangers the game was played and how it went (competition.rating_fold); play a rated game in public"), fields={"rated": ["not for a private game"]})
    seed = new_seed()
    fields = {
        "rated": rated, "private": private, "timeouts_to_resign": timeouts_to_resign,
        "invitation_key": secrets.token_urlsafe(16) if private else "", "rules": rules_id,
        "rules_version": game_rules.version, "players": players, "options": chosen, "seed": seed,
        "seed_sha256": Game.hash_seed(seed), "time_control": control, "timeout_policy": policy, "created_by": creator,
    }

    def decide(change: writer.Change) -> Game:
        game = change.game
        created = {"rules": rules_id, "rules_version": game_rules.version, "players": players, "options": chosen,
                   "seed_sha256": game.seed_sha256}
        change.append(EventKind.CREATED, None, created)
        if creator_plays:
            _take_seat(change, Seat(game=game, index=0, user=creator))
        for wanted in bot_seats:
            _take_seat(change, Seat(game=game, index=wanted["seat"], bot=wanted["bot"], bot_level=wanted["level"]))
        Invitation.objects.bulk_create([Invitation(game=game, user=user) for user in invited])
        for user in invited:
            _invitation_changed(game, user.pk, INVITATION_CREATED)
        return game

    return writer.create(fields, decide)


@transaction.atomic
def game_create_seated(
    *,
    creator: Any,
    rules_id: str,
    players: int,
    options: dict | None,
    time_control: dict | None,
    rated: bool,
    seats: list[dict],
) -> Game:
    """A game whose every seat is named at once (a pairing, a tournament table), so it starts in
    the transaction that makes it: `seats[i]` is `{"user": account}` or `{"bot": name, "level": n}`.
    `creator` (who pairs or runs the tournament) is named as its creator, seated or not."""
    if len(seats) != players:
        raise InvalidInput(msg("a game of {players} needs {players} seats named, not {seats_count}", players=players, seats_count=len(seats)))
    bot_seats = [{"seat": index, "bot": seat["bot"], **({"level": seat["level"]} if seat.get("level") is not None else {})}
                 for index, seat in enumerate(seats) if "bot" in seat]
    game = game_create(creator=creator, rules_id=rules_id, players=players, options=options, bot_seats=bot_seats,
                       time_control=time_control, creator_plays=False, rated=rated)
    for seat in seats:  # in seat order: each takes the lowest free seat, which is its own
        if "user" in seat:
            game_join(game_id=game.pk, user=seat["user"])
    game.refresh_from_db()
    return game


def _time_control_or_default(requested: Any, private: bool) -> dict:
    """A game with no time control asked for gets correspondence, 14 days a move, so a game whose
    players vanished ends; only a private game may say explicitly that it has no clock."""
    if requested in (None, {}):
        return time_controls.normalize_time_control(DEFAULT_TIME_CONTROL)
    if requested == {"type": "none"} and not private:
        raise InvalidInput(msg("a public game has a clock (the default is 14 days a move); no clock is for private games"),
                           fields={"time_control": ["no clock is for private games"]})
    return time_controls.normalize_time_control(requested)


def _invitees(creator: Any, usernames: list[str]) -> list[Any]:
    users = {user.username: user for user in get_user_model().objects.filter(username__in=usernames)}
    unknown = sorted(set(usernames) - set(users))
    if unknown:
        raise InvalidInput(msg("no account named {unknown}", unknown=', '.join(unknown)), fields={"invitees": ["unknown account"]})
    return [user for name, user in sorted(users.items()) if user.pk != creator.pk]


def invitation_decline(*, game_id: int, user: Any) -> None:
    """An invited account says no: the private game is no longer shown to it."""
    def decide(change: writer.Change) -> None:  # an id no game has is told so, whatever its size
        updated = Invitation.objects.filter(game=change.game, user=user).update(status=InvitationStatus.DECLINED)
        if not updated:
            raise GameNotFound(msg("there is no game {id}", id=game_id))
        announce.members_changed(change.game)  # its open streams end
        _invitation_changed(change.game, user.pk, InvitationStatus.DECLINED)

    writer.write(game_id, decide)


def invitation_cancel(*, game_id: int, user: Any, username: str) -> None:
    """The game's creator takes back its invitation of `username` (pending): the private game is
    no longer shown to that account, which may not join it any more."""
    def decide(change: writer.Change) -> None:
        game = change.game
        hide_from_strangers(game, user)
        if game.created_by_id != user.pk:
            raise NotTheCreator(msg("only the game's creator may cancel an invitation"))
        invited = Invitation.objects.filter(game=game, user__username=username, status=InvitationStatus.PENDING).first()
        if invited is None:
            raise InvalidInput(msg("{username} has no pending invitation to game {game_id}", username=username, game_id=game_id), fields={"username": ["not invited"]})
        Invitation.objects.filter(pk=invited.pk).update(status=InvitationStatus.CANCELLED)
        announce.members_changed(game)  # the invitee's open streams end
        _invitation_changed(game, invited.user_id, InvitationStatus.CANCELLED)

    writer.write(game_id, decide)


INVITATION_CREATED = "created"  # what `invitation_changed` says of a new one; else the invitation's new status


def _invitation_changed(game: Game, invitee_id: int, status: str) -> None:
    """Once committed: the invitee's and the inviter's feeds wake, and `invitation_changed` goes
    to the apps beside (webhooks)."""
    game_id, inviter_id = game.pk, game.created_by_id
    for account in (invitee_id, inviter_id):
        announce.account_news(account, game_id)
    transaction.on_commit(lambda: signals.invitation_changed.send_robust(
        Game, game_id=game_id, invitee_id=invitee_id, inviter_id=inviter_id, status=status), robust=True)


def bot_seat_add(*, game_id: int, user: Any, bot: str, level: int | None = None) -> Seat:
    """A bot takes the next free seat of an open game; any player seated there may ask."""
    def decide(change: writer.Change) -> Seat:
        _open_for_seating_by(user, change.game)
        spec = bots.get(bot)
        chosen_level = spec.default_level if level is None else level
        spec.check_level(chosen_level)
        return _seat_next(change, bot=bot, bot_level=chosen_level)

    return writer.write(game_id, decide)


def bot_account_seat(*, game_id: int, user: Any, account: str) -> Seat:
    """A bot account (`bot_account_mark`) takes the next free seat of an open game, as a bot of
    the server's would; any player seated there may ask. The account then plays it like anyone."""
    def decide(change: writer.Change) -> Seat:
        game = change.game
        _open_for_seating_by(user, game)
        bot = account_selectors.bot_account_user(username=account)
        if bot is None:
            raise NotABotAccount(msg("there is no bot account {account!r}", account=account))
        if game.seats.filter(user=bot).exists():
            raise AlreadySeated(msg("{account} already has a seat in game {pk}", account=account, pk=game.pk))
        return _seat_next(change, user=bot)

    return writer.write(game_id, decide)


def _open_for_seating_by(user: Any, game: Game) -> None:
    """Refuse unless the game is open and `user` may seat bots in it: a player seated there, or
    the creator of a game it only watches."""
    hide_from_strangers(game, user)
    if game.created_by_id != user.pk:
        seat_of(game, user)
    _check_open(game)


def _check_open(game: Game) -> None:
    if game.status != GameStatus.OPEN:
        raise GameNotOpen(msg("game {pk} is {status}, not open for players", pk=game.pk, status=state_said(game.status)))


def _seat_next(change: writer.Change, **who: Any) -> Seat:
    """`who` (a user, or a bot and its level) takes the next free seat."""
    seat = Seat(game=change.game, index=_next_free_seat(change.game), **who)
    _take_seat(change, seat)
    return seat


def _checked_bot_seats(wanted: list[dict], players: int, first: int = 1) -> list[dict]:
    checked, taken = [], set(range(first))
    for entry in wanted:
        seat = entry.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not first <= seat < players or seat in taken:
            raise InvalidInput(msg("bot seat {seat!r}: each bot needs its own seat from {first} to {players}", seat=seat, first=first, players=players - 1))
        spec = bots.get(entry.get("bot"))
        level = entry.get("level", spec.default_level)
        spec.check_level(level)
        taken.add(seat)
        checked.append({"seat": seat, "bot": spec.name, "level": level})
    return checked


def game_join(*, game_id: int, user: Any, invitation: str = "") -> Seat:
    """Take the next free seat; a private game needs an invitation (named, or its link's key)."""
    if invitation:
        selectors.check_invitation(invitation)  # malformed: refused alike whether the game exists

    def decide(change: writer.Change) -> Seat:
        game = change.game
        if game.private and not _invited(game, user, invitation):
            raise GameNotFound(msg("there is no game {id}", id=game_id))  # a private game is not told apart from none
        _check_open(game)
        if game.seats.filter(user=user).exists():
            raise AlreadySeated(msg("you already have a seat in game {pk}", pk=game.pk))
        seat = _seat_next(change, user=user)
        if Invitation.objects.filter(game=game, user=user, status=InvitationStatus.PENDING).update(
                status=InvitationStatus.ACCEPTED):
            _invitation_changed(game, user.pk, InvitationStatus.ACCEPTED)
        return seat

    return writer.write(game_id, decide)


def _invited(game: Game, user: Any, invitation: str) -> bool:
    if selectors.invitation_matches(invitation, game.invitation_key):
        return True
    return Invitation.objects.filter(game=game, user=user, status=InvitationStatus.PENDING).exists()


def _next_free_seat(game: Game) -> int:
    taken = set(game.seats.values_list("index", flat=True))
    return min(set(range(game.players)) - taken)


def _take_seat(change: writer.Change, seat: Seat) -> None:
    game = change.game
    seat.save()
    if seat.user_id:
        announce.seated(game, seat.user_id)
    who = {"username": seat.user.username} if seat.user else {"bot": seat.bot, "level": seat.bot_level}
    change.append(EventKind.SYSTEM, seat.index, {"type": "seat_taken", **who})
    if game.seats.count() == game.players:
        game.status = GameStatus.ACTIVE
        change.append(EventKind.SYSTEM, None, {"type": "game_started"})


def stand_in_take(*, change: writer.Change, seat: int, bot: str) -> None:
    """A stand-in bot plays a person's seat from now on (a timeout under the `bot` policy). The
    log says so (`stand_in`, naming the bot), so that what the bot plays is not read as the
    owner's."""
    name = bots.get(bot).name
    Seat.objects.filter(game=change.game, index=seat).update(stand_in=name)
    change.append(EventKind.SYSTEM, seat, {"type": STAND_IN, "bot": name})


def seat_return(*, game_id: int, user: Any) -> Seat:
    """The owner takes back a seat a stand-in bot played (`stand_in_left` in the log, naming the
    bot); its clock starts if it must act."""
    def decide(change: writer.Change) -> Seat:
        game = change.game
        hide_from_strangers(game, user)
        seat = Seat.objects.get(game=game, index=seat_of(game, user))
        if seat.stand_in:
            change.append(EventKind.SYSTEM, seat.index, {"type": STAND_IN_LEFT, "bot": seat.stand_in})
            seat.stand_in = ""
            seat.save(update_fields=["stand_in"])
            change.clocks_changed()
        return seat

    return writer.write(game_id, decide)
