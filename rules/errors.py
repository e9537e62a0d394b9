"""The errors the rules raise. Each has a stable snake_case `code` and a message for people.

- `MalformedMove`: the move is not of a shape the game understands;
- `IllegalMove`: well formed, but not allowed in this position; `NotYourTurn` is one;
- `InvalidOptions`: bad `setup` arguments, naming the option;
- `UnknownRules`: no game by that id.

They know nothing of HTTP: `apikit.http_errors` maps codes to statuses.
"""

from __future__ import annotations

from rules.words import msg


class RulesError(Exception):
    """Every error the rules raise; `code` is stable, `message` is for people."""

    code = "rules_error"

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "detail": self.message}


class UnknownRules(RulesError):
    code = "unknown_rules"


class InvalidOptions(RulesError):
    code = "invalid_option"

    def __init__(self, option: str, message: str, code: str | None = None):
        super().__init__(msg("option {option!r}: {message}", option=option, message=message), code)
        self.option = option


class MalformedMove(RulesError):
    code = "malformed_move"


class IllegalMove(RulesError):
    code = "illegal_move"


class NotYourTurn(IllegalMove):
    code = "not_your_turn"
