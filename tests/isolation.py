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

The Celery workers the worker tests start get a further db, mirrored from the process's own
(`worker_db`: db 0's workers take 14, db 1's 13, ...), so two runs on one Redis from different dbs
(two checkouts' suites at once) share neither db nor channel. Every child process (workers, stream
servers, supervisord) inherits the environment.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
MOST_PROCESSES = 4  # the Makefile's cap
WORKER_DBS_FROM = 14  # db 0's worker tests take db 14, db 1's 13, ... (tests.workers.conftest)
HIGHEST_OWN_DB = (WORKER_DBS_FROM - 1) // 2  # 6: its workers' db 8; db 7 would meet its own


def worker_db(own_db: int) -> int:
    """The Redis db of the Celery workers a process using `own_db` starts in its worker tests."""
    return WORKER_DBS_FROM - own_db


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
        if db > HIGHEST_OWN_DB:
            raise RuntimeError(f"REDIS_URL's db leaves process {worker} db {db}, which another process's worker tests "
                               f"would use: take a db of at most {HIGHEST_OWN_DB} for the last process")
        changes["SCRAPYARD_REDIS_NAMESPACE"] += f"-db{db}"  # pub/sub crosses dbs: a second run's channels apart
    return changes
