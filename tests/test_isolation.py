"""The services each process of a parallel run gets (tests/isolation.py) are its own."""

from __future__ import annotations

import pytest

from tests.isolation import environment_for, worker_db


def test_each_process_gets_its_own_redis_db_namespace_and_var_directory():
    environ = {"REDIS_URL": "redis://127.0.0.1:6379/3", "SCRAPYARD_VAR_DIR": "/srv/var"}
    processes = [environment_for(f"gw{index}", environ) for index in range(4)]
    assert [changes["REDIS_URL"] for changes in processes] == [f"redis://127.0.0.1:6379/{db}" for db in (3, 4, 5, 6)]
    assert len({changes["SCRAPYARD_REDIS_NAMESPACE"] for changes in processes}) == 4
    assert [changes["SCRAPYARD_VAR_DIR"] for changes in processes] == [f"/srv/var/tests/gw{i}" for i in range(4)]
    worker_dbs = {worker_db(db) for db in (3, 4, 5, 6)}
    assert worker_dbs.isdisjoint({3, 4, 5, 6}) and len(worker_dbs) == 4


def test_two_runs_on_one_redis_from_different_dbs_share_no_db_and_no_channel():
    """Two checkouts' suites at once (REDIS_URL /0 and /4): the worker tests of both took dbs 14
    and 13, and their processes the same pub/sub namespaces (a bots' game never finished)."""
    runs = [[environment_for(f"gw{index}", {"REDIS_URL": f"redis://127.0.0.1:6379/{base}"}) for index in range(2)]
            for base in (0, 4)]
    dbs = [{int(changes["REDIS_URL"].rsplit("/", 1)[1]) for changes in run} for run in runs]
    dbs = [own | {worker_db(db) for db in own} for own in dbs]
    assert dbs[0].isdisjoint(dbs[1]) and len(dbs[0]) == len(dbs[1]) == 4
    namespaces = [{changes["SCRAPYARD_REDIS_NAMESPACE"] for changes in run} for run in runs]
    assert namespaces[0].isdisjoint(namespaces[1])


def test_each_process_counts_its_metrics_in_its_own_directory_whatever_it_inherits():
    """The controlling process loads the settings first, which name `var/metrics` in the
    environment every process inherits: a shared directory summed two processes' moves into one
    process's scrape (`tests/project/test_ops.py` counted 9 or 10 moves of its 8)."""
    inherited = {"SCRAPYARD_VAR_DIR": "/srv/var", "PROMETHEUS_MULTIPROC_DIR": "/srv/var/metrics"}
    directories = [environment_for(f"gw{index}", inherited)["PROMETHEUS_MULTIPROC_DIR"] for index in range(2)]
    assert directories == ["/srv/var/tests/gw0/metrics", "/srv/var/tests/gw1/metrics"]


def test_without_redis_only_the_namespace_and_directory_change():
    assert "REDIS_URL" not in environment_for("gw1", {})


def test_a_redis_db_that_would_reach_the_worker_tests_dbs_is_refused():
    with pytest.raises(RuntimeError, match="at most 6"):
        environment_for("gw1", {"REDIS_URL": "redis://127.0.0.1:6379/6"})
    assert environment_for("gw1", {"REDIS_URL": "redis://127.0.0.1:6379/5"})["REDIS_URL"].endswith("/6")
