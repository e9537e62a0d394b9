"""Two SMTP gateways share the port (deploy/supervisord.conf's `smtp` and `smtp-b`): one gone,
the other answers every new connection, with no wait for a restart."""

from __future__ import annotations

import socket

from mail.gateway import controller
from tests.streams.test_game_stream import free_port


def _greeting(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as line:
        return line.recv(100)[:3]


def test_two_gateways_listen_on_one_port_and_one_stopped_leaves_the_other_answering():
    port = free_port()
    first, second = controller("127.0.0.1", port), controller("127.0.0.1", port)
    first.start()
    try:
        second.start()  # the same port: refused without SO_REUSEPORT
        try:
            first.stop()  # its listener closed, as a SIGKILL closes it
            assert [_greeting(port) for _ in range(10)] == [b"220"] * 10
        finally:
            second.stop()
    finally:
        if first.server is not None:
            first.stop()
