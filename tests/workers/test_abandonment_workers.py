"""Abandonment run by beat and real workers: a game nobody moves in is adjourned, then aborted as
abandoned (here with no idle time and no grace, and a sweep every second)."""

from __future__ import annotations

import pytest

from games import services
from games.models import Event, Game
from tests.workers.conftest import wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.timeout(120),
]


def test_beat_adjourns_then_aborts_a_game_nobody_moves_in(start_worker):
    from django.contrib.auth import get_user_model

    users = [get_user_model().objects.create_user(f"gone{n}", password="pw-long-enough") for n in range(2)]
    game = services.game_create(creator=users[0], rules_id="toy_race", players=2, options={})
    services.game_join(game_id=game.pk, user=users[1])
    start_worker(SCRAPYARD_ABANDON_DAYS="0", SCRAPYARD_ADJOURN_GRACE_DAYS="0", SCRAPYARD_ABANDON_SWEEP_SECONDS="1")
    wait_for(lambda: Game.objects.get(pk=game.pk).status == "finished", 60)
    ended = Game.objects.get(pk=game.pk)
    assert ended.result["reason"] == "abandoned" and ended.result["winners"] == []
    kinds = [event.payload.get("type") for event in Event.objects.filter(game=ended).order_by("seq")]
    assert kinds[-2:] == ["adjourned", "abort"]
