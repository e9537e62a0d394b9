"""`make run` checks its ports before it starts anything: a port in use is one line saying which
and how to move it (exit 1), where it was supervisord's traceback."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from project import ports

ROOT = Path(__file__).resolve().parents[2]


def _listening() -> socket.socket:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    return listener


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_port_something_listens_on_is_named_and_the_run_stops():
    with _listening() as listener:
        busy = listener.getsockname()[1]
        free = _free_port()
        done = subprocess.run([sys.executable, "-m", "project.ports", "127.0.0.1", f"PORT={free}", f"SMTP_PORT={busy}"],
                              cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"make run: 127.0.0.1:{busy} (SMTP_PORT) is in use, by another `make run`? (`make status` lists its "
        f"processes): stop it, or choose another port, e.g. SMTP_PORT={busy + 10} make run"]


def test_free_ports_pass_and_a_closed_listener_frees_its_port():
    with _listening() as listener:
        port = listener.getsockname()[1]
        assert ports.taken("127.0.0.1", port)
    assert not ports.taken("127.0.0.1", port)
    assert ports.main(["127.0.0.1", f"PORT={_free_port()}"]) == 0


def test_the_makefile_checks_the_ports_before_the_supervisor_binds_them():
    recipe = (ROOT / "Makefile").read_text().split("\nrun: migrate\n", 1)[1].split("\n\n", 1)[0]
    lines = recipe.splitlines()
    check = next(i for i, line in enumerate(lines) if "project.ports" in line)
    supervisor = next(i for i, line in enumerate(lines) if "supervisord" in line)
    assert check < supervisor and "PORT=$(PORT) SMTP_PORT=$(SMTP_PORT)" in lines[check]
