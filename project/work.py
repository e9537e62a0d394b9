"""A Celery worker of a pair, as `make run` starts them: `python -m project.work --queues=bots
--processes=4 --instance=0` is `celery -A project worker --queues=bots --concurrency=2
--hostname=bots-0@<host>`, in this process (supervisord's signals reach Celery itself).

Every queue is consumed by two worker programs (deploy/supervisord.conf, `numprocs=2`), as the web
server, the stream server and the SMTP gateway run in pairs: when one is killed outright, the other
goes on taking the queue's tasks while the supervisor starts the dead one again, a Django start
that took 20 s and more on a saturated machine (docs/decisions/0035-worker-pairs.md). The queue's
processes (`--processes`: SCRAPYARD_BOT_PROCESSES and the like) are shared between the two, half
each rounded up, as the web server's are (`project.serve.processes_of`), so a pair costs a second
main process, not twice the pool.

Without mingle and gossip: after every (re)connection mingle waited a second for the other workers'
replies before consuming (docs/decisions/0023); Scrapyard revokes no tasks and watches no worker
events, which is all the two steps share.
"""

from __future__ import annotations

import argparse
import math
import sys

PAIRED = 2  # worker programs on each queue, and the queue's processes between them
FLAGS = ("--loglevel=WARNING", "--without-mingle", "--without-gossip")


def processes_each(processes: int) -> int:
    """Each worker's pool: half the queue's processes, rounded up, and at least one."""
    return max(1, math.ceil(processes / PAIRED))


def command(queues: str, processes: int, instance: int) -> list[str]:
    """The `celery` command line of the pair's worker `instance` (0 or 1), named after its first queue."""
    name = queues.split(",")[0]
    return ["celery", "-A", "project", "worker", f"--queues={queues}", f"--concurrency={processes_each(processes)}",
            f"--hostname={name}-{instance}@%h", *FLAGS]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m project.work", description=__doc__.split("\n\n")[0])
    parser.add_argument("--queues", required=True, help="the queues this worker consumes, comma-separated")
    parser.add_argument("--processes", type=int, required=True, help="the queue's pool processes, both workers together")
    parser.add_argument("--instance", type=int, default=0, help="which of the pair (supervisord's process_num)")
    args = parser.parse_args(argv)
    sys.argv = command(args.queues, args.processes, args.instance)
    from celery.__main__ import main as celery_main  # what the `celery` script runs

    celery_main()


if __name__ == "__main__":
    main()
