"""Safe defaults: a key per installation, no public key in production, a server that listens
only on this machine unless told otherwise, hosts and origins from the environment."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from project import installation

ROOT = Path(__file__).resolve().parents[2]


def test_a_key_is_generated_once_per_installation_and_kept_private(tmp_path):
    key_file = tmp_path / "secret_key"
    key = installation.secret_key(None, key_file, debug=False)
    assert len(key) >= installation.MIN_KEY_LENGTH
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert installation.secret_key(None, key_file, debug=False) == key
    assert installation.secret_key(None, tmp_path / "other_key", debug=False) != key


def test_a_key_file_just_created_by_another_process_is_read_once_its_key_is_written(tmp_path):
    """Between another process's exclusive create and its write the file is empty: read then,
    the key was "" (refused as short, or with DEBUG on a server signing with no key)."""
    import threading

    key_file = tmp_path / "secret_key"
    key_file.touch(mode=0o600)
    writer = threading.Timer(0.1, lambda: key_file.write_text("w" * 60 + "\n"))
    writer.start()
    try:
        assert installation.secret_key(None, key_file, debug=True) == "w" * 60
    finally:
        writer.join()


def test_the_environment_key_wins(tmp_path):
    chosen = "k" * 50
    assert installation.secret_key(chosen, tmp_path / "secret_key", debug=False) == chosen
    assert not (tmp_path / "secret_key").exists()


@pytest.mark.parametrize("key", ["scrapyard-insecure-development-key-change-me", "django-insecure-" + "x" * 40, "short"])
def test_a_public_or_short_key_is_refused_with_debug_off_and_allowed_with_it_on(tmp_path, key):
    with pytest.raises(ImproperlyConfigured, match="DJANGO_SECRET_KEY"):
        installation.secret_key(key, tmp_path / "secret_key", debug=False)
    assert installation.secret_key(key, tmp_path / "secret_key", debug=True) == key


def _settings_in_a_fresh_process(tmp_path, **env) -> subprocess.CompletedProcess:
    script = (
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.ALLOWED_HOSTS); print(settings.CSRF_TRUSTED_ORIGINS); print(len(settings.SECRET_KEY))"
    )
    environment = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    environment.update(DJANGO_SETTINGS_MODULE="project.settings", SCRAPYARD_VAR_DIR=str(tmp_path), **env)
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=environment, capture_output=True, text=True)


def test_hosts_and_origins_come_from_the_environment_and_the_key_from_var(tmp_path):
    done = _settings_in_a_fresh_process(
        tmp_path, DJANGO_ALLOWED_HOSTS="play.example.org, api.example.org",
        DJANGO_CSRF_TRUSTED_ORIGINS="https://play.example.org",
    )
    assert done.returncode == 0, done.stderr
    hosts, origins, _ = done.stdout.splitlines()
    assert hosts == "['play.example.org', 'api.example.org']"
    assert origins == "['https://play.example.org']"
    assert (tmp_path / "secret_key").exists()


def test_the_server_refuses_to_start_with_the_old_public_key(tmp_path):
    done = _settings_in_a_fresh_process(tmp_path, DJANGO_SECRET_KEY="scrapyard-insecure-development-key-change-me")
    assert done.returncode != 0
    assert "DJANGO_SECRET_KEY is a public or short key" in done.stderr


def _make_variable(name: str, *overrides: str) -> str:
    """The value `make run` gives a variable (make's database, printed without running)."""
    dry = subprocess.run(["make", "-pn", "run", *overrides], cwd=ROOT, capture_output=True, text=True)
    return next(line.split("=", 1)[1].strip() for line in dry.stdout.splitlines()
                if line.split("=", 1)[0].strip(" :") == name and not line.startswith("#"))


def test_make_run_listens_on_this_machine_only_unless_told():
    from project import serve

    config = (ROOT / "deploy" / "supervisord.conf").read_text()
    assert "command=%(ENV_SCRAPYARD_BIN)s/python -m project.serve" in config
    assert "socket=tcp://%(ENV_HOST)s:%(ENV_PORT)s" in config  # supervisord binds what make exports
    web = serve.from_environment({"HOST": "10.1.2.3", "PORT": "8123"})
    assert web[web.index("--host") + 1] == "10.1.2.3" and web[web.index("--port") + 1] == "8123"  # what make exports
    web = serve.from_environment({"HOST": "10.1.2.3", "PORT": "8123", "SCRAPYARD_WEB_SERVER": "gunicorn"})
    assert web[web.index("--bind") + 1] == "10.1.2.3:8123"
    assert _make_variable("HOST") == "127.0.0.1"
    assert _make_variable("HOST", "HOST=0.0.0.0") == "0.0.0.0"
    assert "export HOST PORT" in (ROOT / "Makefile").read_text()


def test_the_project_says_which_licence_it_is_under():
    licence = (ROOT / "LICENSE").read_text()
    assert "BSD 3-Clause" in licence or "Redistribution and use in source and binary forms" in licence
    assert "LICENSE" in (ROOT / "README.md").read_text()


def test_make_run_gives_the_web_server_and_bot_workers_a_process_per_core():
    import os

    assert _make_variable("CORES") == str(len(os.sched_getaffinity(0)))
    makefile = (ROOT / "Makefile").read_text()
    assert "SCRAPYARD_WEB_PROCESSES ?= $(CORES)" in makefile and "SCRAPYARD_BOT_PROCESSES ?= $(CORES)" in makefile
    from project import serve

    web = serve.from_environment({"SCRAPYARD_WEB_PROCESSES": "3", "SCRAPYARD_WEB_THREADS": "5"})
    assert web[0] == "granian" and web[web.index("--workers") + 1] == "3"  # its threads: project.front's pool
    web = serve.from_environment({"SCRAPYARD_WEB_PROCESSES": "3", "SCRAPYARD_WEB_THREADS": "5",
                                  "SCRAPYARD_WEB_SERVER": "gunicorn"})
    assert web[web.index("--workers") + 1] == "2" and web[web.index("--threads") + 1] == "5"
    assert web[web.index("--worker-class") + 1] == "gthread"
    assert _make_variable("SCRAPYARD_WEB_SERVER") == "granian"
    assert _make_variable("SCRAPYARD_WEB_THREADS") == "4"


def test_make_run_names_no_other_origin_for_the_streams():
    """granian serves the streams on the page's own origin, and gunicorn hands them to its stream
    process on that origin too: `make run` gives pages no other address (they opened their live
    streams on STREAM_PORT, where nothing listens beside granian), and neither does the default."""
    with pytest.raises(StopIteration):
        _make_variable("SCRAPYARD_STREAM_URL")
    with pytest.raises(StopIteration):
        _make_variable("SCRAPYARD_STREAM_URL", "SCRAPYARD_WEB_SERVER=gunicorn")
    environment = {name: value for name, value in os.environ.items() if name != "SCRAPYARD_STREAM_URL"}
    shown = subprocess.run([sys.executable, "-c", "import django; django.setup(); from django.conf import settings; "
                            "print(repr(settings.SCRAPYARD_STREAM_URL))"], cwd=ROOT, capture_output=True, text=True,
                           env={**environment, "DJANGO_SETTINGS_MODULE": "project.settings"}, check=True)
    assert shown.stdout.strip() == "''"
