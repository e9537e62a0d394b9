"""The service's domain errors. Each carries a stable snake_case `code` and a `detail` for people;
none knows about HTTP (the statuses live in `apikit.http_errors`, one table for every code).

The rules raise their own `rules.errors.RulesError` subclasses (`NotYourTurn` among them, the one
class for that refusal) and the bots `bots.base.BotError`; this module imports neither, so any
layer may import it.
"""

from __future__ import annotations

from apikit.errors import InvalidInput, ServiceError  # the games' own errors grow from these


class InvalidInvitation(InvalidInput):
    code = "invalid_invitation"


class GameNotFound(ServiceError):
    code = "game_not_found"


class NotAPlayer(ServiceError):
    code = "not_a_player"


class StaleSeq(ServiceError):
    code = "stale_seq"


class GameNotOpen(ServiceError):
    code = "game_not_open"


class AlreadySeated(ServiceError):
    code = "already_seated"


class GameNotActive(ServiceError):
    code = "game_not_active"


class GameNotFinished(ServiceError):
    code = "game_not_finished"


class IdempotencyKeyReused(ServiceError):
    code = "idempotency_key_reused"


class EventOutOfRange(ServiceError):
    code = "event_out_of_range"


class DeadlinePassed(ServiceError):
    code = "deadline_passed"


class NoVacationLeft(ServiceError):
    code = "no_vacation_left"


class LogDamaged(ServiceError):
    code = "log_damaged"


class RulesVersionGone(ServiceError):
    code = "rules_version_gone"


class TooLateToAbort(ServiceError):
    code = "too_late_to_abort"


class DrawNotOffered(ServiceError):
    code = "no_draw_offered"


class CreatorCannotLeave(ServiceError):
    code = "creator_cannot_leave"


class NotTheCreator(ServiceError):
    code = "not_the_creator"


class RulesNotFound(ServiceError):
    code = "rules_not_found"


class TakebackRefused(ServiceError):
    code = "takeback_refused"


class TakebackNotRequested(ServiceError):
    code = "no_takeback_requested"


class ConditionalNotFound(ServiceError):
    code = "conditional_not_found"


class ConditionalUnsupported(ServiceError):
    """Conditional moves are for two-player games only."""

    code = "conditional_two_players_only"


class ConditionalThroughChance(ServiceError):
    """A line through a move that chance or a secret decides: nobody can know its position."""

    code = "conditional_through_chance"


class ConditionalOnYourTurn(ServiceError):
    code = "conditional_on_your_turn"


class ConditionalInvalid(ServiceError):
    """The line itself: too short, too long, not ending with the owner's move, or a move in it
    that is not legal where the line puts it (`index` names it)."""

    code = "conditional_invalid"


class ConditionalDuplicate(ServiceError):
    """The same line is queued already (from the same position): a second copy would never play."""

    code = "conditional_duplicate"


class TooManyConditionals(ServiceError):
    code = "too_many_conditionals"
