"""`python -m project.ports HOST PORT [PORT ...]`: before `make run` starts its processes, each port
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
    host, ports = argv[0], [int(port) for port in argv[1:]]
    busy = [port for port in ports if taken(host, port)]
    for port in busy:
        print(f"make run: {host}:{port} is in use (another `make run`? `make status` lists its processes): "
              f"stop it, or choose other ports, e.g. PORT=8010 SMTP_PORT=2535 make run", file=sys.stderr)
    return 1 if busy else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
