"""The web server on a listening socket it is handed: deploy/supervisord.conf's `[fcgi-program:web]`.

supervisord binds `HOST`:`PORT` itself, keeps the socket and gives it to each of the two web
programs as their file descriptor 0 (docs/decisions/0031-the-web-port-held-by-the-supervisor.md).
The port then never closes while supervisord runs: when a web server is killed outright, the
other goes on accepting from the one queue, and a connection made while no server accepts waits
in the kernel's backlog until one does (never "connection refused"). A worker that dies loses
only the connections it had itself accepted: the queue is shared, not one per worker.

granian has no option to serve a socket it did not bind. `GranianOnSocket` is granian's server
(`granian.Granian`, its documented programmatic entry) with one internal method replaced:
`_init_shared_socket`, where granian makes the socket its worker processes serve (2.8: on Linux a
`ListenerSpec` each worker binds with `SO_REUSEPORT`; elsewhere a `SocketHolder` on one fd, which
is the shape used here). `granian_fits()` says whether the installed granian still has that seam;
tests/project/test_held_socket.py is its contract (it serves on a socket of the test's and binds
none of its own). When it does not fit, `serve` falls back to uvicorn on the same socket
(`uvicorn.Server.run(sockets=...)`, documented; one process, and more CPU a move than granian:
docs/decisions/0028), and says so.

A granian worker whose main process is gone stops (`die_with_parent`): killed with its main alone,
it went on serving, an orphan beside the restarted server's workers, and no stop reached it.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib
import os
import signal
import socket
import sys

TARGET = "project.front:application"
# granian versions whose `_init_shared_socket` and `SocketHolder(fd, uds, backlog)` the contract
# test has passed on (tests/project/test_held_socket.py); widen after it passes on a new one.
GRANIAN_SEAM = ("2.8.",)
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def inherited(fd: int = 0) -> socket.socket | None:
    """The listening TCP socket on `fd`, moved to a descriptor of its own (`fd` then reads
    /dev/null, as a standard input should); None when `fd` is not one (run by hand: a terminal)."""
    try:
        copy = os.dup(fd)
    except OSError:
        return None
    try:
        listener = socket.socket(fileno=copy)
    except OSError:  # not a socket
        os.close(copy)
        return None
    kind_fits = listener.family in (socket.AF_INET, socket.AF_INET6) and listener.type == socket.SOCK_STREAM
    if not (kind_fits and listener.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)):
        listener.detach()
        os.close(copy)
        return None
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, fd)
    os.close(null)
    listener.set_inheritable(True)
    return listener


def granian_fits() -> bool:
    """Whether the installed granian has the seam `GranianOnSocket` replaces."""
    try:
        import granian
        from granian._granian import SocketHolder  # noqa: F401 - present, with the shape below
        from granian.server.mp import MPServer
    except ImportError:
        return False
    return (granian.__version__.startswith(GRANIAN_SEAM) and granian.Granian is MPServer
            and callable(getattr(MPServer, "_init_shared_socket", None))
            and callable(getattr(MPServer, "_drop_shared_socket", None)))


def _granian_class():
    from granian import Granian

    class GranianOnSocket(Granian):
        """granian's server, serving `listener` instead of a socket it binds (see the module)."""

        def __init__(self, target: str, listener: socket.socket, **options):
            host, port = listener.getsockname()[:2]
            super().__init__(target, address=host, port=port, **options)  # for its log lines
            self.listener = listener

        def _init_shared_socket(self):
            from granian._granian import SocketHolder

            fd = self.listener.fileno()
            self._ssp, self._sfd, self._sso = None, fd, self.listener
            self._shd = SocketHolder(fd, False, self.backlog)

    return GranianOnSocket


def granian_on(listener: socket.socket, processes: int, target: str = TARGET, log_access: bool = False):
    """granian as `make run`'s command line sets it up (project.serve.command), on `listener`; a
    line per request only with `log_access` (`project.serve.logs_access`)."""
    from granian.constants import Interfaces

    return _granian_class()(target, listener, interface=Interfaces.ASGI, workers=processes, backpressure=4096,
                            workers_kill_timeout=5, respawn_failed_workers=True, log_access=log_access)


def die_with_parent(parent: int) -> None:
    """Have the kernel send this process SIGTERM when `parent` (the thread that forked it) ends;
    at once if it already has. Linux only; elsewhere nothing."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)


def load_in_worker(target: str, parent: int):
    """granian's target loader, run in each worker process as it starts: the application, in a
    worker that stops with its main process."""
    die_with_parent(parent)
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def serve(listener: socket.socket, processes: int, target: str = TARGET, log_access: bool = False) -> None:
    """Serve `target` on `listener` until stopped: granian with `processes` workers, or uvicorn;
    a line per request only with `log_access`."""
    if granian_fits():
        server = granian_on(listener, processes, target, log_access)
        server.serve(target_loader=functools.partial(load_in_worker, parent=os.getpid()))
        return
    import granian
    import uvicorn

    print(f"granian {granian.__version__} cannot be handed a socket (project.held_socket): uvicorn serves "
          f"{target} instead, one process", file=sys.stderr, flush=True)
    config = uvicorn.Config(target, timeout_graceful_shutdown=5, access_log=log_access)
    config.load()
    uvicorn.Server(config).run(sockets=[listener])
