"""Conditional moves by mail: "if 3 then 5; if 4 then 1" in a reply queues lines (numbers are
places in the list of legal moves of whoever plays at that point), answered by mail; a line
through chance is refused with its code, and a queued line plays when the opponent matches it."""

from __future__ import annotations

import pytest

import rules
from games import selectors, services, store
from games.models import ConditionalLine, Event, Game
from mail import conditionals
from mail import services as mail_services
from mail.models import Inbound
from tests.api.conftest import register
from tests.mail.smtp import send_reply, text_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def test_lines_of_a_reply():
    assert conditionals.lines_of("if 3 then 5; if 4 then 1") == [["3", "5"], ["4", "1"]]
    assert conditionals.lines_of("If forest grow 0,3 then place fire 0,1 if 2 then 1") == [
        ["forest grow 0,3", "place fire 0,1", "2", "1"]]
    assert conditionals.is_conditional("if 3 then 5") and not conditionals.is_conditional("3")


def _waiting(rules_id: str, names: tuple[str, str]):
    first, second = (register(name, email=f"{name}@players.example") for name in names)
    game_id = first.post("/api/games/", {"rules": rules_id, "players": 2}).json()["id"]
    assert second.post(f"/api/games/{game_id}/join/").status_code == 201
    game = Game.objects.get(pk=game_id)
    seat = game.seats.get(index=1 - game.to_act[0])
    return game, seat


def _numbers_to_reply(game, seat_index):
    """"if a then b ..." numbers up to the waiting seat's first reply (always the first listed)."""
    game_rules, state = rules.get(game.rules), store.state_at(game)
    numbers = []
    while True:
        mover = game_rules.to_act(state)[0]
        move = game_rules.legal_moves(state, mover)[0]
        numbers.append("1")
        state = game_rules.apply(state, mover, move)
        if mover == seat_index:
            return numbers


def test_a_reply_queues_lines_that_play_when_matched(sink, gateway, eager_tasks):
    game, seat = _waiting("terrafex", ("ivy", "jack"))
    numbers = _numbers_to_reply(game, seat.index)
    text = "if " + " then ".join(numbers)
    address = mail_services.reply_address(seat.user_id, game.pk, seat.index)
    send_reply(gateway, f"{seat.user.username}@players.example", address, text)
    handled = Inbound.objects.order_by("pk").last()
    assert handled.code == "conditional_queued", (handled.code, handled.outcome)
    assert "Queued 1 conditional line" in text_of(sink.to(f"{seat.user.username}@players.example")[-1])
    line = ConditionalLine.objects.get()
    opponent = game.seats.get(index=1 - seat.index).user
    for step in line.moves:
        if step["seat"] == seat.index:
            break
        services.move_submit(game_id=game.pk, user=opponent, move=step["move"],
                             expected_seq=selectors.game_get(game_id=game.pk).seq)
    reply = Event.objects.filter(game_id=game.pk).order_by("-seq").first()
    assert reply.seat == seat.index and reply.payload["move"] == line.moves[-1]["move"]


def test_a_reply_through_chance_is_refused_with_its_code(sink, gateway, eager_tasks):
    game, seat = _waiting("scavenge", ("kim", "lou"))
    address = mail_services.reply_address(seat.user_id, game.pk, seat.index)
    send_reply(gateway, f"{seat.user.username}@players.example", address, "if 1 then 1; if 2 then 1")
    handled = Inbound.objects.order_by("pk").last()
    assert handled.code == "conditional_through_chance"
    assert "not queued" in text_of(sink.to(f"{seat.user.username}@players.example")[-1])
    assert not ConditionalLine.objects.exists()


def _several_actions(game_rules) -> bool:
    """Whether a turn has several actions, through the rules protocol: in a two-player opening,
    the first mover still acts after its first action."""
    state = game_rules.setup(2, None, "several")
    mover = game_rules.to_act(state)[0]
    after = game_rules.apply(state, mover, game_rules.legal_moves(state, mover)[0])
    return game_rules.to_act(after) == (mover,)


def test_the_helps_example_for_a_turn_of_several_actions_is_queued_in_its_game(sink, gateway, eager_tasks):
    from mail import compose

    several = [game.id for game in rules.catalog().values()
               if game.conditional_moves and game.min_players <= 2 <= game.max_players and _several_actions(game)]
    example = compose.turn_example(selectors.rules_catalogue())
    assert several and example is not None and example.game in several
    help_text = " ".join(compose.full_help_lines(selectors.rules_catalogue()))
    assert example.line in help_text and example.numbered in help_text
    game, seat = _waiting(example.game, ("opal", "piet"))
    address = mail_services.reply_address(seat.user_id, game.pk, seat.index)
    send_reply(gateway, f"{seat.user.username}@players.example", address, example.line)
    handled = Inbound.objects.order_by("pk").last()
    assert handled.code == "conditional_queued", (handled.code, handled.detail)
    assert len(ConditionalLine.objects.get().moves) == len(example.theirs) + 1
    send_reply(gateway, f"{seat.user.username}@players.example", address, example.numbered)
    assert Inbound.objects.order_by("pk").last().code == "conditional_duplicate"  # the same line, in numbers


def _numbered_line(game, seat_index: int, first: int) -> str:
    """"if ..." through the opponent's actions to the waiting seat's reply: the opponent's first
    action the `first`th of its list, every other the first listed."""
    game_rules, state = rules.get(game.rules), store.state_at(game)
    numbers = []
    while True:
        mover = game_rules.to_act(state)[0]
        index = first if not numbers else 0
        numbers.append(str(index + 1))
        state = game_rules.apply(state, mover, game_rules.legal_moves(state, mover)[index])
        if mover == seat_index:
            return "if " + " then ".join(numbers)


def test_conditional_lines_one_to_a_line_of_the_reply_are_all_queued(sink, gateway, eager_tasks):
    """Each line of a reply is an action, as `;` separates them; a line that does not start with
    `if` goes on the one before (a mail program that cut a long line at 78 columns)."""
    game, seat = _waiting("terrafex", ("quin", "rosa"))
    first, second = _numbered_line(game, seat.index, 0), _numbered_line(game, seat.index, 1)
    cut = second.rsplit(" then ", 1)
    address = mail_services.reply_address(seat.user_id, game.pk, seat.index)
    send_reply(gateway, f"{seat.user.username}@players.example", address, f"{first}\n{cut[0]} then\n{cut[1]}\n")
    handled = Inbound.objects.order_by("pk").last()
    assert handled.code == "conditional_queued", (handled.code, handled.detail)
    assert "Queued 2 conditional lines" in text_of(sink.to(f"{seat.user.username}@players.example")[-1])
    assert ConditionalLine.objects.count() == 2
