"""deploy/nginx.conf in front of a set of nodes: the reverse proxy bench.cluster (and its test)
put in front, with the file's upstreams replaced by the nodes' ports. Everything else is the
file as an operator gets it."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

CONF = Path(__file__).resolve().parent.parent / "deploy" / "nginx.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def render(*, listen: int, api: list[int], streams: list[int], text: str | None = None) -> str:
    """The configuration with these ports: the proxy's, the web servers' and the stream servers'."""
    text = CONF.read_text() if text is None else text
    for name, ports in (("scrapyard_api", api), ("scrapyard_streams", streams)):
        servers = "".join(f"        server 127.0.0.1:{port} max_fails=1 fail_timeout=5s;\n" for port in ports)
        text, found = re.subn(
            rf"(upstream {name} \{{\n)(?:\s*server [^\n]*\n)+", lambda match: match.group(1) + servers, text
        )
        assert found == 1, f"deploy/nginx.conf lost its upstream {name}"
    text, found = re.subn(r"listen 127\.0\.0\.1:\d+;", f"listen 127.0.0.1:{listen};", text)
    assert found == 1, "deploy/nginx.conf lost its listen line"
    return text


def start(directory: Path, *, listen: int, api: list[int], streams: list[int], text: str | None = None) -> subprocess.Popen:
    """nginx in the foreground with its files under `directory`; answering when this returns."""
    (directory / "tmp").mkdir(parents=True, exist_ok=True)
    conf = directory / "nginx.conf"
    conf.write_text(render(listen=listen, api=api, streams=streams, text=text))
    process = subprocess.Popen(
        [NGINX, "-p", f"{directory}/", "-c", str(conf), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"nginx did not start: {process.stderr.read().decode()}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{listen}/metrics", timeout=1)
        except urllib.error.HTTPError:
            return process  # it answers (404: the metrics are never routed)
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("nginx did not answer")
