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

Under supervisord (`make run`) the web server is a pair of programs on a socket supervisord
binds and keeps (`[fcgi-program:web]` in deploy/supervisord.conf, handed over as file descriptor 0:
`project.held_socket`), each with half the processes. When one is killed outright the other goes
on accepting from the same queue while the supervisor starts the dead one again (a Django start
takes tens of seconds on a saturated machine: docs/decisions/0023), and a connection made while
neither accepts waits in the kernel's backlog instead of being refused
(docs/decisions/0031-the-web-port-held-by-the-supervisor.md); a third program of the group serves
nothing and only keeps the socket open when both servers are down (`holds_only`). granian is handed the socket through
`project.held_socket` (uvicorn if the installed granian does not fit it), gunicorn through its
`--bind fd://`. Each loads the application before it accepts, so a server starting again takes no
connection it cannot answer yet. Run by hand (no socket handed over), the server binds
`HOST`:`PORT` itself: granian with all the processes, gunicorn with `SO_REUSEPORT`.
"""

from __future__ import annotations

import math
import os
import signal
import sys

from project import held_socket

SERVERS = ("granian", "gunicorn")
DEFAULT = "granian"
PAIRED = 2  # servers sharing the port (web-0 and web-1), and SCRAPYARD_WEB_PROCESSES between them


def command(server: str, host: str, port: int | str, processes: int | str, threads: int | str,
            fd: int | None = None) -> list[str]:
    """The server's command line (after `python -m`), binding host:port, or serving the listening
    socket `fd` it was handed (gunicorn only: granian is handed one in this process,
    `project.held_socket`). The front's threads are its own pool (`project.front` reads
    SCRAPYARD_WEB_THREADS)."""
    if server == "granian":
        # Idle streams count against granian's requests at once per worker (its backpressure,
        # backlog / workers by default): room for thousands. At a stop, open streams are cut
        # after 5 s; their clients resume with Last-Event-ID. project.held_socket.granian_on
        # sets up the same server.
        return ["granian", "--interface", "asgi", "--host", host, "--port", str(port), "--workers", str(processes),
                "--backpressure", "4096", "--workers-kill-timeout", "5", "--respawn-failed-workers",
                held_socket.TARGET]
    if server == "gunicorn":
        bind = ["--bind", f"fd://{fd}"] if fd is not None else ["--bind", f"{host}:{port}", "--reuse-port"]
        return ["gunicorn", "project.wsgi", *bind, "--preload", "--workers", str(processes),
                "--worker-class", "gthread", "--threads", str(threads), "--keep-alive", "30", "--timeout", "60"]
    raise SystemExit(f"SCRAPYARD_WEB_SERVER is {server!r}: it is one of {', '.join(SERVERS)}")


def hands_streams_over(server: str) -> bool:
    """Whether the server needs a stream process beside it (only gunicorn: the others serve the
    streams themselves)."""
    return server == "gunicorn"


def server_of(environ: dict[str, str]) -> str:
    return environ.get("SCRAPYARD_WEB_SERVER", "") or DEFAULT


def processes_of(environ: dict[str, str], paired: bool) -> int:
    """SCRAPYARD_WEB_PROCESSES (default: a process per core), or half of it for each of a pair."""
    processes = int(environ.get("SCRAPYARD_WEB_PROCESSES", "") or len(os.sched_getaffinity(0)))
    return math.ceil(processes / PAIRED) if paired else processes


def from_environment(environ: dict[str, str], fd: int | None = None) -> list[str]:
    """The command `make run`'s environment asks for; `fd`: the listening socket handed over."""
    server = server_of(environ)
    paired = fd is not None or server == "gunicorn"  # run by hand, gunicorns pair on SO_REUSEPORT
    return command(server, environ.get("HOST", "127.0.0.1"), environ.get("PORT", "8000"),
                   processes_of(environ, paired), environ.get("SCRAPYARD_WEB_THREADS", "") or "4", fd)


def logs_access(environ: dict[str, str]) -> bool:
    """Whether each request gets a line on stdout: only when `SCRAPYARD_ACCESS_LOG` asks. The line
    costs the web server about a fifth of a read's CPU (docs/decisions/0038-no-access-log-by-default.md);
    a proxy in front logs requests where one is wanted, and errors are logged either way."""
    return environ.get("SCRAPYARD_ACCESS_LOG", "").strip().lower() in ("1", "true", "yes", "on")


def access_log(server: str, environ: dict[str, str]) -> list[str]:
    """The server's flags for an access log on stdout (as supervisord collects it), if one is asked for."""
    if not logs_access(environ):
        return []
    return ["--access-logfile", "-"] if server == "gunicorn" else ["--access-log"]


def holds_only(argv: list[str]) -> bool:
    """Whether this program is the third of `[fcgi-program:web]` (`--instance 2`), which serves
    nothing and only keeps the port's socket referenced: supervisord closes the socket once no
    process of the group runs, and with it every connection waiting in its backlog."""
    return "--instance" in argv and int(argv[argv.index("--instance") + 1]) >= PAIRED


def main() -> None:
    environ = dict(os.environ)
    listener = held_socket.inherited(0)  # supervisord's [fcgi-program:web] hands it over on 0
    if listener is not None and holds_only(sys.argv[1:]):
        print("web: holding the port's socket while the servers beside it start and stop", flush=True)
        signal.pause()
        return
    if listener is not None and server_of(environ) == "granian":
        held_socket.serve(listener, processes_of(environ, paired=True), log_access=logs_access(environ))
        return
    argv = from_environment(environ, None if listener is None else listener.fileno())
    argv += access_log(argv[0], environ)
    os.execv(sys.executable, [sys.executable, "-m", *argv])


if __name__ == "__main__":
    main()
