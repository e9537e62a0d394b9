"""The errors every app raises. Each carries a stable snake_case `code` and a `detail` for people;
none knows about HTTP (the statuses live in `apikit.http_errors`, one table for every code). Each
app's own errors grow from these (`games.errors`, `accounts.errors`, ...); this module imports
nothing of the project, so any layer may import it."""

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


class UnknownField(InvalidInput):
    code = "unknown_field"
