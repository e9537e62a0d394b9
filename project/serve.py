"""The web server, as `make run` and every node start it: `python -m project.serve`.

Two HTTP servers run the same WSGI application (`project.wsgi`), a process per core
(`SCRAPYARD_WEB_PROCESSES`) and `SCRAPYARD_WEB_THREADS` threads in each, on `HOST`:`PORT`:

- `gunicorn` (the default): threaded, with keep-alive. It lends a stream request's socket to the
  stream process (`streams.handoff`), so one address serves the API and its streams with no proxy
  in front: what `make run` needs.
- `granian` (`SCRAPYARD_WEB_SERVER=granian`): its HTTP handling is Rust code, and a move costs
  the web process less CPU (docs/decisions/0011-granian-behind-a-proxy.md). It
  cannot lend a socket, so a proxy in front must send the stream routes to the stream process
  (deploy/nginx.conf does) and `SCRAPYARD_STREAM_HANDOFF` stays empty; a stream request that
  still reaches it is redirected to `SCRAPYARD_STREAM_URL`.

gunicorn runs as two servers on the one port (`web` and `web-b` in deploy/supervisord.conf,
`SO_REUSEPORT`), each with half the processes: when one is killed outright, the kernel hands new
connections to the other at once, while the supervisor starts the dead one again (a Django start
takes tens of seconds on a saturated machine; docs/decisions/0023). Each loads the application
before it listens (`--preload`, then its workers are forked ready), so a server starting again
takes no connection it cannot answer yet. granian runs alone behind its proxy: its second
program only waits.
"""

from __future__ import annotations

import math
import os
import signal
import sys

SERVERS = ("gunicorn", "granian")
PAIRED = 2  # gunicorn servers sharing the port, and SCRAPYARD_WEB_PROCESSES between them


def command(server: str, host: str, port: int | str, processes: int | str, threads: int | str) -> list[str]:
    """The server's command line (after `python -m`)."""
    if server == "gunicorn":
        return ["gunicorn", "project.wsgi", "--bind", f"{host}:{port}", "--reuse-port", "--preload", "--workers", str(processes),
                "--worker-class", "gthread", "--threads", str(threads), "--keep-alive", "30", "--timeout", "60"]
    if server == "granian":
        return ["granian", "--interface", "wsgi", "--host", host, "--port", str(port), "--workers", str(processes),
                "--blocking-threads", str(threads), "--respawn-failed-workers", "project.wsgi:application"]
    raise SystemExit(f"SCRAPYARD_WEB_SERVER is {server!r}: it is one of {', '.join(SERVERS)}")


def from_environment(environ: dict[str, str]) -> list[str]:
    """The command `make run`'s environment asks for; refuses granian with a stream handoff."""
    server = environ.get("SCRAPYARD_WEB_SERVER", "") or "gunicorn"
    if server == "granian" and environ.get("SCRAPYARD_STREAM_HANDOFF"):
        raise SystemExit("granian cannot hand a stream's connection to the stream process: route the stream paths "
                         "to it with a proxy (deploy/nginx.conf) and set SCRAPYARD_STREAM_HANDOFF= (empty)")
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
        print(f"{argv[0]} serves alone behind its proxy: the second web program waits", flush=True)
        signal.pause()  # stays up, so the supervisor does not start it again and again
        return
    argv += access_log(argv[0])
    os.execv(sys.executable, [sys.executable, "-m", *argv])


if __name__ == "__main__":
    main()
