"""deploy/supervisord.conf's web server under supervisord itself: `[fcgi-program:web]`, the port
held by supervisord and handed to two granians and a keeper (docs/decisions/0031). A SIGKILL of a
server's main process and its workers, or of both servers at once, leaves no request refused: a
request made right after is answered, by the other server or, once one is back, from the backlog.
Only the web server's section runs here (not the workers, beat or the SMTP gateway)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from django.db import connection

from tests.streams.test_game_stream import ROOT, free_port

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres, pytest.mark.timeout(600)]

BIN = Path(sys.executable).parent
SECTIONS = ("[supervisord]", "[unix_http_server]", "[rpcinterface:supervisor]", "[supervisorctl]", "[fcgi-program:web]")
ANSWERED_WITHIN = 240  # seconds: a Django start on a saturated machine; a bound on being answered at all


def web_only_config(path: Path) -> Path:
    """deploy/supervisord.conf's SECTIONS as they are, in a file of the test's own."""
    text = (ROOT / "deploy" / "supervisord.conf").read_text()
    kept = []
    for section in SECTIONS:
        start = text.index(section)
        end = text.find("\n[", start + 1)
        kept.append(text[start:end if end > 0 else None])
    path.write_text("\n".join(kept).replace("%(here)s", str(ROOT / "deploy")))
    return path


class Supervised:
    def __init__(self, var: Path, port: int):
        database = connection.settings_dict
        self.env = {**os.environ, "SCRAPYARD_VAR_DIR": str(var), "SCRAPYARD_BIN": str(BIN), "HOST": "127.0.0.1",
                    "PORT": str(port), "SCRAPYARD_WEB_PROCESSES": "2", "SCRAPYARD_WEB_THREADS": "2",
                    "SCRAPYARD_WEB_SERVER": "granian",
                    "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"}
        self.config = str(web_only_config(var / "web.conf"))
        self.log = var / "supervisor.out"
        self.process = subprocess.Popen([str(BIN / "supervisord"), "--nodaemon", "--configuration", self.config],
                                        cwd=ROOT, env=self.env, stdout=open(self.log, "wb"), stderr=subprocess.STDOUT)
        self.base = f"http://127.0.0.1:{port}"

    def pid(self, name: str) -> int:
        return int(subprocess.run([str(BIN / "supervisorctl"), "--configuration", self.config, "pid", name],
                                  env=self.env, capture_output=True, text=True, timeout=60).stdout.strip() or 0)

    def started(self) -> int:
        """How many times a granian has started its worker (each logs it, once it is loaded)."""
        return self.log.read_text(errors="replace").count("Started worker-1")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


def _wait(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def _answered(base: str) -> int:
    """A request's status; a refused connection raises (requests.ConnectionError)."""
    return requests.get(f"{base}/api/health/", timeout=ANSWERED_WITHIN, headers={"Connection": "close"}).status_code


def test_a_request_right_after_a_sigkill_of_the_web_server_is_answered_not_refused(tmp_path):
    server = Supervised(tmp_path, free_port())
    try:
        assert _wait(lambda: server.started() == 2 and server.pid("web:web-2"), ANSWERED_WITHIN), \
            server.log.read_text()[-3000:]
        os.killpg(server.pid("web:web-0"), signal.SIGKILL)  # its main process and its worker
        assert [_answered(server.base) for _ in range(5)] == [200] * 5  # by web-1, at once
        assert _wait(lambda: server.started() == 3, ANSWERED_WITHIN)  # web-0 again
        for group in [server.pid("web:web-0"), server.pid("web:web-1")]:  # both at once
            os.killpg(group, signal.SIGKILL)
        assert _answered(server.base) == 200  # waited in the backlog (web-2 holds it) until one was back
    finally:
        server.stop()
