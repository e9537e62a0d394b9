"""Reads: an analysis as its API gives it, and the mails still owed for done ones."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, gettext_noop

from analysis import engine, services
from analysis.models import Analysis, AnalysisRequest, AnalysisStatus
from games import words
from rules.words import message_from

# Told with every analysis, and on the game page: the bot never saw more than the mover did.
VIEW_NOTE = gettext_noop("Each move is judged only from what its player saw at that moment (the player's own view), "
             "never from cards, tiles or choices hidden from them; so is the move the bot preferred.")
NONE = "none"  # never asked for


def analysis_answer(*, game_id: int, user: Any) -> dict[str, Any]:
    services.game_analysable(game_id=game_id, user=user)
    return answer_of(game_id, Analysis.objects.filter(game_id=game_id).first())


def answer_of(game_id: int, analysis: Analysis | None) -> dict[str, Any]:
    done = analysis is not None and analysis.status == AnalysisStatus.DONE
    return {
        "game": game_id,
        "status": NONE if analysis is None else analysis.status,
        "range": list(engine.VALUE_RANGE),
        "marks": {"mistake": engine.MISTAKE_DROP, "inaccuracy": engine.INACCURACY_DROP},
        "seen_from": gettext(VIEW_NOTE),  # in the reader's language
        "budget": analysis.budget if analysis is not None else services.budget_settings(),
        "finished_at": analysis.finished_at.isoformat() if done and analysis.finished_at else None,
        "problem": analysis.problem if analysis is not None and analysis.status == AnalysisStatus.FAILED else "",
        "moves": [_in_words(move) for move in analysis.moves] if done else [],
    }


def _in_words(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored move as the API gives it: its notation, and its words and the preferred move's in
    the reader's language. An analysis stored before the words were kept reads its notation."""
    move = {key: value for key, value in stored.items() if key not in ("text_message", "preferred_message")}
    move["words"] = _words(stored.get("text_message"), stored["text"])
    move["preferred_words"] = _words(stored.get("preferred_message"), stored["preferred_text"])
    return move


def _words(message: dict[str, Any] | None, notation: str | None) -> str | None:
    return notation if message is None else str(words.translated(message_from(message)))


def analysis_done_of(*, game_id: int) -> dict[str, Any]:
    """A done analysis as the API gives it, for a door that checked who may have it."""
    return answer_of(game_id, Analysis.objects.get(game_id=game_id, status=AnalysisStatus.DONE))


def mail_owed(*, game_id: int) -> list[dict[str, int]]:
    """Who asked by mail for this game's (done) analysis and has not been sent it yet."""
    rows = AnalysisRequest.objects.filter(analysis__game_id=game_id, analysis__status=AnalysisStatus.DONE, by_mail=True,
                                          mailed_at__isnull=True).values("pk", "user_id")
    return [{"request": row["pk"], "user": row["user_id"]} for row in rows]
