"""The web server, as `make run` and every node start it: `python -m project.serve`.

`SCRAPYARD_WEB_SERVER` picks one of two, each a process per core (`SCRAPYARD_WEB_PROCESSES`)
with `SCRAPYARD_WEB_THREADS` threads for the synchronous views, on `HOST`:`PORT`:

- `granian` (the default): one origin for the API, the pages and the live streams. Its HTTP
  handling is Rust code; it serves `project.front`, which sends the stream paths to Django's ASGI
  handler on the event loop and everything else to the WSGI application on the threads. It
  measured the least server CPU a move (docs/decisions/0028-one-origin-under-granian.md).
- `gunicorn`: the WSGI application, threaded with keep-alive; it lends a stream request's socket
  to a stream process of its own (`streams.handoff`, `SCRAPYARD_STREAM_HANDOFF`), which
  `make run` then starts beside it (deploy/supervisord.conf).

gunicorn runs as two servers on the one port (`web` and `web-b` in deploy/supervisord.conf,
`SO_REUSEPORT`), each with half the processes: when one is killed outright, the kernel hands new
connections to the other at once, while the supervisor starts the dead one again (a Django start
takes tens of seconds on a saturated machine; docs/decisions/0023). Each loads the application
before it listens (`--preload`, then its workers are forked ready), so a server starting again
takes no connection it cannot answer yet. granian cannot share its port (it has no
`SO_REUSEPORT`): it runs alone, its second program only waits, and a worker of it that dies is
started again by granian itself while the others go on serving.
"""

from __future__ import annotations

import math
import os
import signal
import sys

SERVERS = ("granian", "gunicorn")
DEFAULT = "granian"
PAIRED = 2  # gunicorn servers sharing the port, and SCRAPYARD_WEB_PROCESSES between them


def command(server: str, host: str, port: int | str, processes: int | str, threads: int | str) -> list[str]:
    """The server's command line (after `python -m`). The front's threads are its own pool
    (`project.front` reads SCRAPYARD_WEB_THREADS)."""
    if server == "granian":
        # Idle streams count against granian's requests at once per worker (its backpressure,
        # backlog / workers by default): room for thousands. At a stop, open streams are cut
        # after 5 s; their clients resume with Last-Event-ID.
        return ["granian", "--interface", "asgi", "--host", host, "--port", str(port), "--workers", str(processes),
                "--backpressure", "4096", "--workers-kill-timeout", "5", "--respawn-failed-workers",
                "project.front:application"]
    if server == "gunicorn":
        return ["gunicorn", "project.wsgi", "--bind", f"{host}:{port}", "--reuse-port", "--preload", "--workers", str(processes),
                "--worker-class", "gthread", "--threads", str(threads), "--keep-alive", "30", "--timeout", "60"]
    raise SystemExit(f"SCRAPYARD_WEB_SERVER is {server!r}: it is one of {', '.join(SERVERS)}")


def hands_streams_over(server: str) -> bool:
    """Whether the server needs a stream process beside it (only gunicorn: the others serve the
    streams themselves)."""
    return server == "gunicorn"


def from_environment(environ: dict[str, str]) -> list[str]:
    """The command `make run`'s environment asks for."""
    server = environ.get("SCRAPYARD_WEB_SERVER", "") or DEFAULT
    processes = int(environ.get("SCRAPYARD_WEB_PROCESSES", "") or len(os.sched_getaffinity(0)))
    if server == "gunicorn":
        processes = math.ceil(processes / PAIRED)  # each of the pair
    return command(server, environ.get("HOST", "127.0.0.1"), environ.get("PORT", "8000"), processes,
                   environ.get("SCRAPYARD_WEB_THREADS", "") or "4")


def access_log(server: str) -> list[str]:
    """Each request on stdout, as supervisord collects it."""
    return ["--access-logfile", "-"] if server == "gunicorn" else ["--access-log"]


def main() -> None:
    argv = from_environment(dict(os.environ))
    if "--second" in sys.argv[1:] and argv[0] != "gunicorn":
        print(f"{argv[0]} serves alone (it cannot share its port): the second web program waits", flush=True)
        signal.pause()  # stays up, so the supervisor does not start it again and again
        return
    argv += access_log(argv[0])
    os.execv(sys.executable, [sys.executable, "-m", *argv])


if __name__ == "__main__":
    main()
