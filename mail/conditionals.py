"""Conditional moves by mail: a reply such as "if 3 then 5; if 4 then 1" queues lines
(`games.services.conditionals`). Each ";" starts another line; within one, "if A then B if C
then D" chains. A move is its notation text, or a number: the place of the move in the list of
legal moves of whoever plays it at that point of the line (for the opponent's moves, the list
the game would give them there). The answer says what was queued, or why not."""

from __future__ import annotations

import re
from typing import Any, Callable

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apikit import errors as apikit_errors
from games import errors, services, words
from rules.errors import RulesError
from rules.words import msg

STARTS = re.compile(r"^\s*if\s", re.IGNORECASE)
WORDS = re.compile(r"\b(?:if|then)\b", re.IGNORECASE)
QUEUED = "conditional_queued"


def is_conditional(command: str) -> bool:
    return bool(STARTS.match(command))


def lines_of(command: str) -> list[list[str]]:
    """The lines a reply names, each a list of move specs in order ("if 3 then 5" -> ["3", "5"])."""
    lines = []
    for clause in command.split(";"):
        specs = [spec.strip() for spec in WORDS.split(clause) if spec.strip()]
        if specs:
            lines.append(specs)
    return lines


def _resolved(game_id: int, user: Any, specs: list[str]) -> list[Any]:
    """Numbers become the moves they name, position by position; texts stay for the service."""
    moves: list[Any] = []
    for spec in specs:
        if spec.isdecimal():  # not isdigit, which takes "²" (int() refuses it)
            listed = services.conditional_preview(game_id=game_id, user=user, moves=moves)["moves"]
            number = int(spec)
            if not 1 <= number <= len(listed):
                raise errors.InvalidInput(msg("there is no move numbered {number} there: the list runs from 1 to {listed_count}", number=number, listed_count=len(listed)))
            moves.append(listed[number - 1])
        else:
            moves.append(spec)
    return moves


def queue_by_mail(*, game: Any, user: Any, command: str, answer: Callable[[str, str], None]) -> tuple[str, str]:
    """Queue every line of the reply; `answer(code, said)` mails the outcome. All or none: a
    refused line refuses the reply, and the lines before it are cancelled again."""
    queued = []
    try:
        for number, specs in enumerate(lines_of(command), start=1):
            line = services.conditional_create(game_id=game.pk, user=user, moves=_resolved(game.pk, user, specs))
            queued.append(line)
    except (apikit_errors.ServiceError, RulesError) as error:
        for line in queued:
            services.conditional_cancel(game_id=game.pk, user=user, line_id=line.pk)
        code = error.code
        detail = error.detail if isinstance(error, apikit_errors.ServiceError) else error.message
        said = _("Your conditional moves were not queued (line {line}, {code}): {detail}").format(
            line=len(queued) + 1, code=code, detail=words.translated(detail))
        answer(code, said)
        return code, detail
    said = ngettext("Queued {count} conditional line in game {game}: each plays only if your opponent moves as it "
                    "says. Only you know of them.",
                    "Queued {count} conditional lines in game {game}: each plays only if your opponent moves as it "
                    "says. Only you know of them.", len(queued)).format(count=len(queued), game=game.pk)
    answer(QUEUED, said)
    return QUEUED, said
