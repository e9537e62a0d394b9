"""Services of its own for each process of a parallel run (`make test` runs pytest-xdist).

pytest-django already gives each process a test database of its own (`test_<name>_gw0`, ...).
The rest is set in the process's environment before it starts pytest (the hook
`pytest_xdist_newgateway` in tests/conftest.py), since the settings read it once, on loading:

- a Redis db of its own, counted up from the one `REDIS_URL` names: the rate-limit counts in the
  cache, the broker's queues and the flushes a test makes stay in one process;
- a namespace for pub/sub channels, which Redis delivers across dbs, so one process's stream
  notices never wake another's streams (`SCRAPYARD_REDIS_NAMESPACE`);
- a var directory of its own (the files cache, the files broker, mail written to files), and in it
  the Prometheus counters' directory, which the controlling process's settings had already
  named in the environment every process inherits.

The Celery workers the worker tests start get a further db, counted down from 14
(`tests.workers.conftest`). Every child process (workers, stream servers, supervisord) inherits
the environment.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
MOST_PROCESSES = 4  # the Makefile's cap
WORKER_DBS_FROM = 14  # down: 14, 13, ... (tests.workers.conftest)


def process_index(worker: str | None = None) -> int:
    """0 for a run without xdist and for its first process (gw0), 1 for gw1, ..."""
    worker = worker or os.environ.get("PYTEST_XDIST_WORKER") or "gw0"
    return int(worker.removeprefix("gw"))


def _redis_db_moved(url: str, by: int) -> str:
    parts = urlsplit(url)
    db = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{db + by}"))


def environment_for(worker: str, environ=os.environ) -> dict[str, str]:
    """What the process `worker` (gw0, gw1, ...) changes in the environment it inherits."""
    var = Path(environ.get("SCRAPYARD_VAR_DIR", ROOT / "var")) / "tests" / worker
    changes = {
        "SCRAPYARD_REDIS_NAMESPACE": f"scrapyard-test-{worker}",
        "SCRAPYARD_VAR_DIR": str(var),
        "PROMETHEUS_MULTIPROC_DIR": str(var / "metrics"),
    }
    if environ.get("REDIS_URL"):
        changes["REDIS_URL"] = _redis_db_moved(environ["REDIS_URL"], process_index(worker))
        db = int(urlsplit(changes["REDIS_URL"]).path.strip("/"))
        if db >= WORKER_DBS_FROM - MOST_PROCESSES + 1:
            raise RuntimeError(f"REDIS_URL's db leaves process {worker} db {db}, which the worker tests use: take a db below 8")
    return changes
