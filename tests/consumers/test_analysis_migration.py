"""Moving analysis onto the framework loses no analysis asked for: each queued or running at the
upgrade gets its row in the outbox, ready for the first sweep to send, and a running one (whose
run's lease went with the old fields) is queued again; a finished one gets no row."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("analysis", "0001_initial"), ("consumers", "0003_mail_cursors")]
AFTER = [("analysis", "0002_analysis_a_consumer"), ("consumers", "0004_analysis_rows")]


def _apps_at(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def _leaves() -> list[tuple[str, str]]:
    graph = MigrationExecutor(connection).loader.graph
    return [node for node in graph.leaf_nodes() if node[0] in ("analysis", "consumers")]


def test_analyses_outstanding_at_the_upgrade_get_their_rows_and_a_running_one_is_queued_again():
    leaves = _leaves()
    old = _apps_at(BEFORE)
    at = dt.datetime(2026, 12, 6, tzinfo=dt.timezone.utc)
    Analysis = old.get_model("analysis", "Analysis")
    for game_id, status in ((901, "queued"), (902, "running"), (903, "done"), (904, "failed")):
        Analysis.objects.create(game_id=game_id, status=status, queued_at=at,
                                lease_holder="worker-1" if status == "running" else "")

    new = _apps_at(AFTER)
    rows = new.get_model("consumers", "Message").objects.filter(consumer="analysis")
    assert sorted(rows.values_list("key", "game_id", "status")) == [
        ("analysis:901", 901, "pending"), ("analysis:902", 902, "pending")]
    assert all(row.enqueued_at is None and row.next_attempt_at is not None for row in rows)  # the sweep sends them
    statuses = dict(new.get_model("analysis", "Analysis").objects.values_list("game_id", "status"))
    assert statuses == {901: "queued", 902: "queued", 903: "done", 904: "failed"}
    _apps_at(leaves)
