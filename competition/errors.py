"""Competitive play's refusals, in the API's one error shape (their statuses: `apikit.http_errors`)."""

from apikit.errors import ServiceError


class SeekNotFound(ServiceError):
    code = "seek_not_found"


class TooManySeeks(ServiceError):
    code = "too_many_seeks"


class TournamentNotFound(ServiceError):
    code = "tournament_not_found"


class TournamentClosed(ServiceError):
    code = "tournament_closed"


class AlreadyEntered(ServiceError):
    code = "already_entered"


class NotTheOrganiser(ServiceError):
    code = "not_the_organiser"


class TrfNotForTables(ServiceError):
    code = "trf_two_player_only"


class NotEntered(ServiceError):
    code = "not_entered"


class ByesSwissOnly(ServiceError):
    code = "byes_swiss_only"


class RoundAlreadyPaired(ServiceError):
    code = "round_already_paired"


class TooManyByes(ServiceError):
    code = "too_many_byes"


class ByeNotAsked(ServiceError):
    code = "bye_not_asked"


class EntrantNotFound(ServiceError):
    code = "entrant_not_found"
