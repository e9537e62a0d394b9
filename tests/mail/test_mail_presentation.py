"""Mails show the rules' presentation (a panel per seat, the prompt, the cells the last move
changed) in words that know no game, and only what the reader's seat may see: the lines a mail
shows are the ones a determinized position (every other seat's secret drawn afresh) gives."""

from __future__ import annotations

import random
import re

import pytest
from django.utils import translation

import rules
from accounts import services as account_services
from games import selectors, services, store
from mail import compose
from mail import services as mail_services
from rules.presentation import text_lines
from tests.mail.smtp import guard_of, listed_moves, text_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

MOVES_BEFORE_LOOKING = 9


def _users(*names: str) -> list:
    from django.contrib.auth import get_user_model

    users = []
    for name in names:
        user, _ = account_services.account_create(username=name, password="correct horse battery", email=f"{name}@players.example")
        mail_services.settings_update(user=user, play_forced=False)  # the test plays every move itself
        users.append(get_user_model().objects.get(pk=user.pk))
    return users


def _started(users: list, rules_id: str) -> object:
    game = services.game_create(creator=users[0], rules_id=rules_id, players=2, options={})
    services.game_join(game_id=game.pk, user=users[1])
    game.refresh_from_db()
    return game


def _played_a_while(game, users: list, moves: int) -> object:
    """Random legal moves, stopping short of one that would end the game."""
    game_rules, rnd = store.rules_of(game), random.Random(game.rules)
    for _ in range(moves):
        game.refresh_from_db()
        state = store.state_at(game)
        seat = rnd.choice(game.to_act)
        move = rnd.choice(game_rules.legal_moves(state, seat))
        if game_rules.outcome(game_rules.apply(state, seat, move)) is not None:
            break
        services.move_submit(game_id=game.pk, user=users[seat], move=move, expected_seq=game.seq)
    game.refresh_from_db()
    return game


def _seen_by(game, seat: int, names: list[str], seed: int) -> list[str]:
    """The panels and the prompt as the seat's view alone allows: drawn from a sampled state."""
    game_rules, state = store.rules_of(game), store.state_at(game)
    view = game_rules.view(state, seat)
    sampled = game_rules.sample_state(view, seat, random.Random(seed))
    return text_lines(game_rules.presentation(sampled, seat), names, you=seat, acting=game.to_act)


def _asking(sink, user) -> object:
    mails = [mail for mail in sink.to(f"{user.username}@players.example") if listed_moves(mail)]
    return max(reversed(mails), key=guard_of)


@pytest.mark.parametrize("rules_id", sorted(rules.catalog()))
def test_a_your_turn_mail_shows_every_seats_panel_and_the_prompt_and_no_secret(rules_id, sink, eager_tasks):
    users = _users(f"{rules_id.replace('_', '')[:8]}a", f"{rules_id.replace('_', '')[:8]}b")
    game = _started(users, rules_id)
    first = text_of(_asking(sink, users[game.to_act[0]]))
    assert "Now: " in first and f"  {users[1].username} (" in first  # the mail the server sent
    game = _played_a_while(game, users, MOVES_BEFORE_LOOKING)
    seat = game.to_act[0]
    text = _composed(users[seat], game).text
    names = [user.username for user in users]
    shown = _seen_by(game, seat, names, seed=1)
    assert _seen_by(game, seat, names, seed=2) == shown
    assert "\n".join(shown) in text, f"the mail's panels and prompt are not the seat's own:\n{text}"
    prompt = store.rules_of(game).presentation(store.state_at(game), seat)["prompt"]
    assert " ".join(f"Now: {prompt}".split()) in " ".join(text.split())
    for other, name in enumerate(names):
        panel_name = store.rules_of(game).panels(store.state_at(game), seat)[other]["name"]
        assert f"  {name} ({panel_name}" in text


def test_a_mail_in_a_wrestling_round_shows_nothing_of_the_other_gangs_choice(sink, eager_tasks):
    from tests.api.test_secrets_api import _to_the_duel

    users = _users("una", "vic")
    game = _to_the_duel(users)
    early, late = game.to_act
    before = _composed(users[late], game).text
    asked = before.split("Now: ", 1)[1].split("\n  ", 1)[0]
    assert "wrestling" in asked and "will not see them until both have chosen" in " ".join(before.split())
    choices = store.rules_of(game).legal_moves(store.state_at(game), early)
    services.move_submit(game_id=game.pk, user=users[early], move=choices[-1], expected_seq=game.seq)
    game.refresh_from_db()
    after = _composed(users[late], game).text
    # That the other gang has chosen is public (it is no longer to act); what it chose is not.
    assert _block(after) == _block(before).replace(f"{users[early].username} (Rubbles, to act)", f"{users[early].username} (Rubbles)"), \
        "the other gang's secret choice changed the mail's panels or prompt"
    names = [user.username for user in users]
    assert "\n".join(_seen_by(game, late, names, seed=3)) in after


def _composed(user, game):
    preference = mail_services.preference_of(user.pk)
    return compose.your_turn(mail_services.seat_context(user, selectors.game_get(game_id=game.pk), preference))


def _block(text: str) -> str:
    """The presentation's words (wrapping aside): from the prompt to the history or the moves."""
    start = text.index("Now: ")
    return " ".join(text[start:text.index("\n\n", start)].split())


def test_the_text_board_shows_the_panels_and_the_prompt(client):
    from django.contrib.auth import get_user_model

    users = _users("tbx", "tby")
    game = _played_a_while(_started(users, "scavenge"), users, 3)
    seat = game.to_act[0]
    client.force_login(get_user_model().objects.get(pk=users[seat].pk))
    board = client.get(f"/api/games/{game.pk}/board.txt").content.decode()
    assert store.rules_of(game).render_text(store.state_at(game), seat).rstrip("\n") in board
    assert "\n".join(_seen_by(game, seat, ["tbx", "tby"], seed=4)) in board
    assert all(len(line) <= 78 for line in board.splitlines())
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "Now: " in page and f"  tbx (" in page


@pytest.mark.parametrize(("language", "said"), [("en", "The last move changed: map column"),
                                                 ("nl", "De laatste zet veranderde: kaart kolom")])
def test_a_space_junkyard_mail_names_the_changed_cells_as_its_map_does(language, said, sink, eager_tasks):
    """The mail once said "The last move changed: map:0,4" under a map numbered from 1."""
    users = _users(f"sjm{language}a", f"sjm{language}b")
    game = _started(users, "space_junkyard")
    for _ in range(40):  # to a move that changed the map (a ship placed or moved, junk pushed in)
        game = _played_a_while(game, users, 1)
        seat = game.to_act[0]
        touched = store.rules_of(game).presentation(store.state_at(game), seat, store.state_at(game, game.seq - 1))["touched"]
        if any(name.startswith("map:") for name in touched):
            break
    with translation.override(language):
        text = _composed(users[seat], game).text
    assert said in text and not re.search(r"map:-?\d", text), text
