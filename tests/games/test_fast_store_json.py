"""The fast store decodes JSON columns with orjson (`games.stores.fast._json_value`): every value
comes back as `JSONField.from_db_value` (the standard library) gives it, type and all."""

from __future__ import annotations

import pytest

from games.models import Event
from games.stores import fast

TEXTS = [
    None, '{"move": {"type": "walk", "to": [3, 5]}}', '[1.5, -2, "x\\u00e9", null, true, false]',
    "123456789012345678901234567890", "-123456789012345678901234567890", "9223372036854775807",
    "18446744073709551615", '{"seed": 340282366920938463463374607431768211455}', '"\\ud800"', "1e400",
    '{"a": 1, "a": 2}', "not json", "", "0.1", "-0.0", '"2026-12-05T22:00:00Z"',
]


@pytest.mark.parametrize("text", TEXTS)
def test_a_json_column_reads_as_the_orm_reads_it(text):
    expression = Event._meta.get_field("payload").get_col(Event._meta.db_table)
    got = fast._json_value(text, expression, None)
    expected = expression.target.from_db_value(text, expression, None)
    assert repr(got) == repr(expected) and type(got) is type(expected)
