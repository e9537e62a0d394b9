"""The accounts' errors (sign-up, tokens, bot accounts): codes with their statuses in
`apikit.http_errors`."""

from apikit.errors import ServiceError


class InvalidCredentials(ServiceError):
    code = "invalid_credentials"


class UsernameTaken(ServiceError):
    code = "username_taken"


class PlayerNotFound(ServiceError):
    code = "player_not_found"


class TokenNotFound(ServiceError):
    code = "token_not_found"


class TooManyTokens(ServiceError):
    code = "too_many_tokens"


class NotABotAccount(ServiceError):
    code = "not_a_bot_account"


class AccountHasPlayed(ServiceError):
    code = "account_has_played"


class PersonalCredentialsOnly(ServiceError):
    """An app's OAuth token may not manage the player's personal tokens: one it made, or the
    first token it read, would outlive the app's own revocation."""

    code = "personal_credentials_only"
