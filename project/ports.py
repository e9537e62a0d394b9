"""`python -m project.ports HOST NAME=PORT [NAME=PORT ...]`: before `make run` starts its processes, each port
it will listen on is free, or it says which one is taken and how to move it. Without it a second
`make run`, or anything else on 8000, ended in supervisord's traceback ("Could not create FastCGI
socket"), with the first process's shutdown lines after it."""

from __future__ import annotations

import socket
import sys


def taken(host: str, port: int) -> bool:
    """Whether something listens on `host`:`port`, binding as the supervisor will (SO_REUSEADDR,
    so a port a stopped run left in TIME_WAIT counts as free, as it is for the supervisor)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return True
    return False


def main(argv: list[str]) -> int:
    host, named = argv[0], [item.split("=", 1) for item in argv[1:]]
    busy = [(name, int(port)) for name, port in named if taken(host, int(port))]
    for name, port in busy:
        print(f"make run: {host}:{port} ({name}) is in use, by another `make run`? (`make status` lists its "
              f"processes): stop it, or choose another port, e.g. {name}={port + 10} make run", file=sys.stderr)
    return 1 if busy else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
