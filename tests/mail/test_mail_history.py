"""A mail's "Since your last move" names each line's player as the log does: the seat's player at
that event, once ("bea takes a seat", not "cid: bea takes a seat" after cid took bea's seat over),
and a move beside its player."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from games import selectors, services
from mail import compose
from mail import services as mail_services

pytestmark = pytest.mark.django_db


def _history(text: str) -> list[str]:
    lines = text.split("Since your last move:\n", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in lines.splitlines()]


def _your_turn(user, game_id: int) -> str:
    game = selectors.game_get(game_id=game_id)
    return compose.your_turn(mail_services.seat_context(user, game, mail_services.preference_of(user.pk))).text


def test_the_history_names_the_seats_player_at_each_line_once():
    ann, bea, cid, dan = (get_user_model().objects.create_user(username=name) for name in ("ann", "bea", "cid", "dan"))
    game = services.game_create(creator=ann, rules_id="toy_race", players=3, options={})
    services.game_join(game_id=game.pk, user=bea)
    services.leave(game_id=game.pk, user=bea)
    for user in (cid, dan):
        services.game_join(game_id=game.pk, user=user)
    assert _history(_your_turn(ann, game.pk)) == [
        "1. game created", "2. ann takes a seat", "3. bea takes a seat", "4. bea leaves the seat",
        "5. cid takes a seat", "6. dan takes a seat", "7. game started",
    ]
    for user in (ann, cid, dan):
        seq = selectors.game_get(game_id=game.pk).seq
        services.move_submit(game_id=game.pk, user=user, move={"type": "step"}, expected_seq=seq)
    assert _history(_your_turn(ann, game.pk)) == ["9. cid: step", "10. dan: step"]
