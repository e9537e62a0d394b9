"""The benchmarks' PostgreSQL database, shared by those that need one (`bench.run`, `bench.p1`,
`bench.p1_profile`, `bench.reads`, `bench.move_path`, `bench.competition`): its address, made if
missing, and `manage.py` run against it. A module of its own so that a benchmark that calls
another imports neither's helpers from the other."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/scrapyard_bench"


def url() -> str:
    return os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL)


def ensure(database_url: str) -> None:
    """Create the database if the server has none of that name."""
    import psycopg

    name = database_url.rsplit("/", 1)[1]
    admin = database_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def environment(database_url: str) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": database_url, "DJANGO_SETTINGS_MODULE": "project.settings"}


def manage(database_url: str, *args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=environment(database_url), check=True)


def migrated() -> str:
    """The benchmark database's address, made and migrated."""
    database_url = url()
    ensure(database_url)
    manage(database_url, "migrate", "--noinput", "--verbosity", "0")
    return database_url
