"""What every app's routes share."""

from django.urls import path


def with_and_without_slash(routes: list) -> list:
    """Both `games/` and `games` reach each view: with APPEND_SLASH, a POST without the slash got
    a 301 whose redirect drops the body, and a client following it believed the create worked."""
    return [
        both
        for route in routes
        for both in (route, path(str(route.pattern).rstrip("/"), route.callback))
    ]
