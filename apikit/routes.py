"""What every app's routes share."""

from django.urls import path, register_converter

LARGEST_ID = 2**63 - 1  # a 64-bit signed column's largest value, the same in PostgreSQL and SQLite


class RowId:
    """`<id:game_id>`: a row's id, digits the database's id column can hold. `<int:>` passed any
    number of digits on to the query, where one past 2**63 - 1 failed in the driver (a 500)
    instead of finding nothing; such an id now matches no route, a 404 like any missing URL."""

    regex = "[0-9]{1,19}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number > LARGEST_ID:
            raise ValueError(value)  # Django reads it as "this route does not match"
        return number

    def to_url(self, value: int) -> str:
        return str(value)


def register_row_id() -> None:
    register_converter(RowId, "id")


def with_and_without_slash(routes: list) -> list:
    """Both `games/` and `games` reach each view: with APPEND_SLASH, a POST without the slash got
    a 301 whose redirect drops the body, and a client following it believed the create worked."""
    return [
        both
        for route in routes
        for both in (route, path(str(route.pattern).rstrip("/"), route.callback))
    ]
