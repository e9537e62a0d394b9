"""The chat's errors."""

from apikit.errors import ServiceError


class ChatTooFast(ServiceError):
    code = "chat_too_fast"
