"""The service's domain errors. Each carries a stable snake_case `code` and a `detail` for people;
none knows about HTTP (the statuses live in `games.http_errors`, one table for every code).

The rules raise their own `rules.errors.RulesError` subclasses (`NotYourTurn` among them, the one
class for that refusal) and the bots `bots.base.BotError`; this module imports neither, so any
layer may import it.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    code = "bad_request"

    def __init__(self, detail: str, **extra: Any):
        super().__init__(detail)
        self.detail = detail
        self.extra = extra

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "detail": self.detail, **self.extra}


class InvalidInput(ServiceError):
    code = "invalid_input"


class InvalidInvitation(InvalidInput):
    code = "invalid_invitation"


class UnknownField(InvalidInput):
    code = "unknown_field"


class InvalidCredentials(ServiceError):
    code = "invalid_credentials"


class UsernameTaken(ServiceError):
    code = "username_taken"


class GameNotFound(ServiceError):
    code = "game_not_found"


class PlayerNotFound(ServiceError):
    code = "player_not_found"


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


class TokenNotFound(ServiceError):
    code = "token_not_found"


class TooManyTokens(ServiceError):
    code = "too_many_tokens"


class NotABotAccount(ServiceError):
    code = "not_a_bot_account"


class AccountHasPlayed(ServiceError):
    code = "account_has_played"


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


class ChatTooFast(ServiceError):
    code = "chat_too_fast"


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


class TooManyAnalyses(ServiceError):
    """The account has as many analyses queued or running as it may (`analysis.services`)."""

    code = "too_many_analyses"


class AnalysisRunsUsed(ServiceError):
    """The game's analysis was (re)queued as often as a day allows: a failing one is not rerun
    on every request."""

    code = "analysis_runs_used"
