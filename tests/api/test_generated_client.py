"""A client generated from `/api/schema/` by openapi-python-client (pinned in requirements.txt),
used as generated: two accounts made with it, and a whole game of each installed game played with
it, each move chosen from its own legal-moves call. The generated code talks HTTP to the Django
application in this process (httpx's WSGI transport), so it reads the test database.

Before issue 53 its `SeatSummary.from_dict` failed on every human seat (an `allOf` beside
`nullable`, which the generator ignores) and `account_create` asked for an authenticated client."""

from __future__ import annotations

import importlib
import inspect
import json
import random
import subprocess
import sys

import httpx
import pytest
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from rest_framework.test import APIClient

import rules

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

PACKAGE = "scrapyard_generated_client"
BASE = "http://testserver"
# The same choosers as tests/api/test_every_game_api.py: a few hundred moves a game.
CHOOSERS = {"scavenge": 31}
CONFIG = "post_hooks: []\ncontent_type_overrides:\n  application/x-ndjson: text/plain\n"  # as docs/api-clients.md


@pytest.fixture(autouse=True)
def connection_kept_across_requests():
    """As Django's test client does: a request's end must not close the test's connection (and
    with it the transaction holding the test's data)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture(scope="module")
def generated(tmp_path_factory, django_db_blocker):
    folder = tmp_path_factory.mktemp("client")
    with django_db_blocker.unblock():
        # An address of its own: this runs before the function fixtures that lift the rate limits
        # and forget the counts the last test left on 127.0.0.1.
        schema = APIClient(REMOTE_ADDR="10.253.0.1").get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    (folder / "schema.json").write_bytes(schema.content)
    # No formatter run afterwards; and NDJSON (the export), which the generator does not know, read
    # as text: without the override it leaves the export's answer out, with a warning.
    (folder / "config.yaml").write_text(CONFIG)
    done = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", "schema.json", "--output-path", PACKAGE,
         "--meta", "none", "--config", "config.yaml"],
        cwd=folder, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout + done.stderr, done.stdout + done.stderr  # nothing left out
    sys.path.insert(0, str(folder))
    try:
        yield _Generated()
    finally:
        sys.path.remove(str(folder))
        for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
            del sys.modules[name]


class _Generated:
    """The generated package's modules, by their generated names."""

    def __getattr__(self, name: str):
        return importlib.import_module(f"{PACKAGE}.{name}")

    def transport(self) -> dict:
        return {"transport": httpx.WSGITransport(app=get_wsgi_application())}

    def anonymous(self):
        return self.client.Client(base_url=BASE, httpx_args=self.transport(), raise_on_unexpected_status=True)

    def signed_in(self, token: str):
        return self.client.AuthenticatedClient(base_url=BASE, token=token, prefix="Token", httpx_args=self.transport(),
                                               raise_on_unexpected_status=True)


def test_making_an_account_needs_no_credentials(generated):
    create = importlib.import_module(f"{PACKAGE}.api.accounts.account_create")
    assert "Client" in str(inspect.signature(create.sync).parameters["client"].annotation).replace("AuthenticatedClient", "")
    obtain = importlib.import_module(f"{PACKAGE}.api.accounts.token_obtain")
    assert "Client" in str(inspect.signature(obtain.sync).parameters["client"].annotation).replace("AuthenticatedClient", "")


def _account(generated, username: str):
    create = importlib.import_module(f"{PACKAGE}.api.accounts.account_create")
    body = generated.models.AccountInputRequest(username=username, password="correct horse battery")
    answer = create.sync(client=generated.anonymous(), body=body)
    assert isinstance(answer, generated.models.AccountAnswer), answer
    return generated.signed_in(answer.token)


def _api(name: str):
    return importlib.import_module(f"{PACKAGE}.api.games.{name}")


@pytest.mark.parametrize("rules_id", sorted(rules.catalog()))
def test_a_whole_game_with_the_generated_client(generated, rules_id):
    models = generated.models
    seated = [_account(generated, f"gen_{rules_id}_{seat}") for seat in range(2)]
    created = _api("game_create").sync(client=seated[0], body=models.GameCreateInputRequest(rules=rules_id, players=2))
    assert isinstance(created, models.GameDetail), created
    joined = _api("game_join").sync(created.id, client=seated[1])
    assert isinstance(joined, models.GameDetail), joined
    assert [seat.username for seat in joined.seats] == [f"gen_{rules_id}_0", f"gen_{rules_id}_1"]
    assert all(seat.bot is None for seat in joined.seats)  # the field that crashed from_dict
    assert joined.draw_offer is None and joined.takeback_request is None

    rnd = random.Random(f"{rules_id}:2:{CHOOSERS.get(rules_id, 1)}")
    game, moves = joined, 0
    while game.status != "finished":
        seat = rnd.choice(game.to_act)
        listed = _api("legal_moves").sync(created.id, client=seated[seat])
        assert isinstance(listed, models.LegalMoves) and listed.seq == game.seq and listed.moves, listed
        move = models.MoveRequestMove.from_dict(rnd.choice(listed.moves).to_dict())
        answer = _api("move_submit").sync(created.id, client=seated[seat],
                                           body=models.MoveRequest(move=move, expected_seq=listed.seq))
        assert isinstance(answer, models.MoveAnswer), answer
        game, moves = answer.game, moves + 1
        assert moves < 5_000, "the game did not end"

    final = _api("game_get").sync(created.id, client=seated[0])
    assert isinstance(final, models.GameDetail) and final.status == "finished" and final.seed
    assert set(final.result.to_dict()["winners"]) <= {0, 1}
    record = _api("game_record").sync(created.id, client=seated[1])
    assert isinstance(record, models.RecordAnswer) and record.events[-1].seq == final.seq
    assert json.dumps(record.to_dict())  # the record reads back as JSON


def test_the_generated_export_reads_ndjson_lines_that_verify(generated):
    """`playerGamesExport` streams NDJSON: documented as anything but its media type, the
    generated call parsed the whole body as one JSON document and failed on the second line."""
    from rules.verify import verify

    host, guest = (_account(generated, f"gen_export_{seat}") for seat in range(2))
    games = []
    for rules_id in ("toy_race", "scavenge"):
        body = generated.models.GameCreateInputRequest(rules=rules_id, players=2)
        created = _api("game_create").sync(client=host, body=body)
        _api("game_join").sync(created.id, client=guest)
        _api("game_resign").sync(created.id, client=guest)
        games.append(created.id)
    export = importlib.import_module(f"{PACKAGE}.api.players.player_games_export")
    answer = export.sync_detailed("gen_export_0", client=guest)
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/x-ndjson"
    assert isinstance(answer.parsed, str) and answer.parsed.encode() == answer.content
    lines = [json.loads(line) for line in answer.parsed.splitlines()]
    assert [line["game"] for line in lines] == games
    for line in lines:
        assert generated.models.RecordAnswer.from_dict(line).game == line["game"]  # each line is the component
        assert verify(line).ok, verify(line)


def _tournaments(name: str):
    return importlib.import_module(f"{PACKAGE}.api.tournaments.{name}")


def test_a_club_runs_its_swiss_entries_with_the_generated_client(generated):
    """Organise, enter late-comers and bots, take one out, ask for a half-point bye and take it
    back, as a club's own tool generated from the schema would."""
    import datetime as dt

    models = generated.models
    organiser, member = _account(generated, "gen_arbiter"), _account(generated, "gen_member")
    body = models.TournamentCreateInputRequest.from_dict({
        "name": "Club Swiss", "kind": "swiss", "rules": "toy_race", "rounds": 3, "half_point_byes": 2,
        "time_control": {"type": "step", "seconds": 60},
        "starts_at": (dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)).isoformat()})
    created = _tournaments("tournament_create").sync(client=organiser, body=body)
    assert isinstance(created, models.TournamentDetail) and created.half_point_byes == 2, created
    entered = _tournaments("tournament_join").sync(created.id, client=member)
    assert [e.username for e in entered.entrant_list] == ["gen_member"]
    asked = _tournaments("tournament_bye_ask").sync(created.id, client=member,
                                                    body=models.TournamentByeInputRequest(round_=2))
    assert asked.entrant_list[0].byes_asked == [2]
    back = _tournaments("tournament_bye_take_back").sync(created.id, 2, client=member)
    assert back.entrant_list[0].byes_asked == []
    with_bot = _tournaments("tournament_bot_add").sync(created.id, client=organiser,
                                                       body=models.TournamentBotInputRequest(bot="random"))
    bot = next(e for e in with_bot.entrant_list if e.is_bot)
    removed = _tournaments("tournament_entrant_remove").sync(created.id, bot.id, client=organiser)
    assert [e.name for e in removed.entrant_list] == ["gen_member"]
