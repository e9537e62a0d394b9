"""Words the rules show people, kept translatable without Django.

The rules write every sentence a page, mail or text board shows with `msg` (or `nmsg` where a
count picks singular or plural): the result is the English text, a plain `str` to everything
that reads it, carrying its template and values. The service layer, which knows its reader's
language, writes it again from a translated template (`games.words`); `makemessages` finds the
templates through the `msg` and `nmsg` keywords. A value may itself be a `Message` (a pawn's
name in a sentence), or an error raised with one (a reason caught and named in a refusal): it is
translated first.
"""

from __future__ import annotations

from typing import Any, Self


class Message(str):
    """English text that remembers how it was written."""

    template: str
    plural: str | None
    count: int | None
    params: dict[str, Any]

    def __new__(cls, template: str, plural: str | None = None, count: int | None = None, **params: Any) -> Self:
        chosen = template if plural is None or count == 1 else plural
        text = chosen.format(count=count, **params) if (params or count is not None) else chosen
        self = super().__new__(cls, text)
        self.template, self.plural, self.count, self.params = template, plural, count, params
        return self

    def render(self, translate_one, translate_plural, write_number=str) -> str:
        """This text in other words: `translate_one(template)`, `translate_plural(one, many, count)`
        (gettext and ngettext), the values rendered the same way; a `Number` as `write_number`
        writes it (1,5 in Dutch)."""
        chosen = translate_one(self.template) if self.plural is None else translate_plural(self.template, self.plural, self.count)
        if not self.params and self.count is None:
            return chosen
        values = {key: _rendered(value, translate_one, translate_plural, write_number) for key, value in self.params.items()}
        return chosen.format(count=self.count, **values)


class Lines(str):
    """Lines of text (a text board) that remember each line written with `msg`: the English text,
    joined, to everything that reads it; `lines` for a reader in another language, each line then
    translated on its own (`games.words.text_lines`). Where the English was fitted to a width
    (`written`: a long line wrapped in two), `lines` are the lines as written, each sentence whole,
    to be translated and fitted again."""

    lines: tuple[str, ...]

    def __new__(cls, lines: Any, written: Any = None) -> Self:
        lines = tuple(lines)
        self = super().__new__(cls, "\n".join(lines))
        self.lines = lines if written is None else tuple(written)
        return self

    def __getnewargs__(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        # Pickled (the shared cache keeps text boards) as its lines, each Message with its template.
        return (tuple(str.split(self, "\n")), self.lines)


class Number(float):
    """A number a sentence shows (a score, points): written as the reader writes numbers when
    translated, and as Python's shortest form (`:g`, 1.5 and 2) in English."""

    def __str__(self) -> str:
        return f"{float(self):g}"

    def __format__(self, spec: str) -> str:
        return str(self) if not spec else float.__format__(self, spec)


def _rendered(value: Any, translate_one, translate_plural, write_number=str) -> Any:
    """A value in other words: a `Message`, or an error whose words are one (a `ValueError(msg(...))`
    caught and named in a sentence of its own), or a `Number`; anything else as it is."""
    if isinstance(value, BaseException) and len(value.args) == 1 and isinstance(value.args[0], Message):
        value = value.args[0]
    if isinstance(value, Number):
        return write_number(value)
    return value.render(translate_one, translate_plural, write_number) if isinstance(value, Message) else value


def msg(template: str, **params: Any) -> Message:
    return Message(template, **params)


def listed(values: Any, separator: str = ", ") -> str:
    """Values (words written with `msg`, names, numbers) joined by `separator`: their English
    joined, as `separator.join` gives it, each translated on its own for another reader. Its
    template is no sentence to translate: gettext gives it back as it is."""
    values = list(values)
    if not any(isinstance(value, Message) for value in values):
        return separator.join(str(value) for value in values)
    gap = separator.replace("{", "{{").replace("}", "}}")
    return Message(gap.join(f"{{v{i}}}" for i in range(len(values))), **{f"v{i}": value for i, value in enumerate(values)})


def either(values: Any) -> str:
    """Alternatives, "a or b or c": each a word written with `msg` or a value as it is."""
    values = list(values)
    if not values:
        return ""
    found = values[0]
    for value in values[1:]:
        found = msg("{first} or {second}", first=found, second=value)
    return found


def nmsg(one: str, many: str, count: int, **params: Any) -> Message:
    """`nmsg("{count} step", "{count} steps", 3)`: "3 steps"."""
    return Message(one, many, count, **params)


def message_data(text: Any) -> dict[str, Any] | None:
    """A text written with `msg`, as JSON data to store (an analysis keeps its moves' words so):
    `message_from` writes it again, to be read later in any language. None for a plain `str`,
    which has no other words than its own."""
    if not isinstance(text, Message):
        return None
    return {"template": text.template, "plural": text.plural, "count": text.count,
            "params": {key: _value_data(value) for key, value in text.params.items()}}


def message_from(data: dict[str, Any]) -> Message:
    """The `Message` that `message_data` stored: the same English, the same template and values."""
    params = {key: _value_from(value) for key, value in data["params"].items()}
    return Message(data["template"], data["plural"], data["count"], **params)


def _value_data(value: Any) -> dict[str, Any]:
    # Each value tagged by its kind, so a word, a number and a plain value come back as they were.
    if isinstance(value, BaseException) and len(value.args) == 1 and isinstance(value.args[0], Message):
        value = value.args[0]
    if isinstance(value, Message):
        return {"message": message_data(value)}
    if isinstance(value, Number):
        return {"number": float(value)}
    if value is None or type(value) in (bool, int, float):
        return {"value": value}
    return {"value": str(value)}  # a str (or anything else) as the English text showed it


def _value_from(data: dict[str, Any]) -> Any:
    if "message" in data:
        return message_from(data["message"])
    if "number" in data:
        return Number(data["number"])
    return data["value"]
