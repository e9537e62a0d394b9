# Scrapyard: `make run` serves the API with Celery workers and beat; `make test` runs the suite.
# Both create .venv and install the pinned requirements first. With no DATABASE_URL / REDIS_URL
# they use the embedded default: SQLite and Celery's filesystem broker under var/.

PYTHON ?= python3
# 127.0.0.1 unless you mean to serve others: HOST=0.0.0.0 (then set DJANGO_ALLOWED_HOSTS too).
HOST ?= 127.0.0.1
PORT ?= 8000
# The API, the pages and the live streams (SSE / NDJSON) are all served on PORT, by one web
# server (project/serve.py). Only with SCRAPYARD_WEB_SERVER=gunicorn do the streams come from a
# stream process of their own on this port, to which gunicorn hands each stream's connection
# over the socket SCRAPYARD_STREAM_HANDOFF (streams.handoff).
STREAM_PORT ?= 8001
# Play-by-email replies come in through the SMTP gateway on this port (mail.gateway).
SMTP_PORT ?= 2525
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.requirements-installed

.PHONY: install migrate run status worker test bench clean screenshots

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

# The message catalogues (locale/<lang>/LC_MESSAGES/*.po) compiled to .mo by GNU gettext's
# msgfmt (Debian: apt-get install gettext); the .mo files are not kept in git.
CATALOGUES := $(wildcard locale/*/LC_MESSAGES/*.po)
COMPILED := $(CATALOGUES:.po=.mo)
$(COMPILED) &: $(CATALOGUES) | $(STAMP)
	@command -v msgfmt >/dev/null || { echo "GNU gettext's msgfmt is missing: apt-get install gettext" >&2; exit 1; }
	$(BIN)/python manage.py compilemessages --ignore=.venv --ignore=staticfiles --verbosity 0
	touch $(COMPILED)

install: $(STAMP) $(COMPILED)

migrate: install
	$(BIN)/python manage.py migrate --noinput

# Every process under supervisord (deploy/supervisord.conf), which restarts any that dies: the
# web server, two Celery workers per queue (deadlines, bots, default, mail, webhooks, analysis),
# sharing the queue's processes, and beat on its own.
# Ctrl-C stops them all. Beyond one machine, run the same programs on each (one beat will do; a
# second is harmless, the sweeps it drives are idempotent).
export HOST PORT STREAM_PORT SMTP_PORT
export SCRAPYARD_BIN := $(abspath $(BIN))
# Where the embedded default keeps its database, broker, cache and mail, and supervisord its
# socket, pid and logs (project.settings reads the same variable).
export SCRAPYARD_VAR_DIR ?= $(abspath var)
# Sizing: the web server and the bot workers burn CPU (a move is a few ms of Python, a bot's turn
# seconds of search), so each gets a process per core; a web process runs 4 threads for the
# synchronous views, since a request waits on the database about half its time, and keeps
# connections alive between a client's requests (the streams wait on its event loop). Deadlines,
# the default queue, mail and webhooks mostly wait: 2 processes each, one in each worker of the
# queue's pair (project.work gives each half, rounded up: at least one each). Override any of
# them; beyond one machine, size each machine by its own cores.
CORES := $(shell $(PYTHON) -c 'import os; print(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)')
export SCRAPYARD_WEB_PROCESSES ?= $(CORES)
export SCRAPYARD_WEB_THREADS ?= 4
# granian serving API, pages and streams on PORT, which measured the least CPU a move
# (docs/decisions/0028-one-origin-under-granian.md); gunicorn on request. Only gunicorn
# needs the stream process beside it (deploy/supervisord.conf starts it then) and the handoff socket.
export SCRAPYARD_WEB_SERVER ?= granian
export SCRAPYARD_STREAM_PROCESS := $(if $(filter gunicorn,$(SCRAPYARD_WEB_SERVER)),true,false)
ifeq ($(SCRAPYARD_WEB_SERVER),gunicorn)
export SCRAPYARD_STREAM_HANDOFF ?= $(SCRAPYARD_VAR_DIR)/streams.sock
endif
export SCRAPYARD_DEADLINE_PROCESSES ?= 2
export SCRAPYARD_BOT_PROCESSES ?= $(CORES)
export SCRAPYARD_DEFAULT_PROCESSES ?= 2
export SCRAPYARD_MAIL_PROCESSES ?= 2
export SCRAPYARD_WEBHOOK_PROCESSES ?= 2
export SCRAPYARD_FEED_PROCESSES ?= 2
# Analyses run at the lowest CPU priority (deploy/supervisord.conf), one in each worker of the pair.
export SCRAPYARD_ANALYSIS_PROCESSES ?= 2

run: migrate
	@$(BIN)/python -m project.ports $(HOST) PORT=$(PORT) SMTP_PORT=$(SMTP_PORT) $(if $(filter true,$(SCRAPYARD_STREAM_PROCESS)),STREAM_PORT=$(STREAM_PORT))
	mkdir -p $(SCRAPYARD_VAR_DIR)
	rm -rf $(SCRAPYARD_VAR_DIR)/metrics  # the last run's processes' metric files (project.metrics)
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	@echo "Scrapyard on http://$(HOST):$(PORT)/ (play in the browser; the API and its streams at /api/, its docs at /api/docs/; Ctrl-C stops everything)"
	@echo "Play by email: replies to smtp://$(HOST):$(SMTP_PORT); $(if $(EMAIL_URL),mail goes out through EMAIL_URL,mails are written as .eml files to $(SCRAPYARD_VAR_DIR)/mail/)"
	$(BIN)/supervisord --nodaemon --configuration deploy/supervisord.conf

# What `make run` is running, from another terminal.
status: install
	$(BIN)/supervisorctl --configuration deploy/supervisord.conf status

worker: install
	$(BIN)/celery -A project worker --queues=deadlines,bots,default,mail,webhooks,analysis --loglevel=INFO

# The suite runs in two processes per core (pytest-xdist, at most 4: each takes two Redis dbs, see
# tests/isolation.py), each test handed to whichever process is free: many tests wait on a
# browser, a worker or a clock, with their core idle (docs/decisions/0039-two-test-processes-a-core.md).
# TEST_PROCESSES=0 runs it in this one process.
TEST_PROCESSES ?= $(shell $(PYTHON) -c 'print(min(2 * $(CORES), 4))')

test: install
	$(BIN)/python -m pytest --numprocesses=$(TEST_PROCESSES) --dist=worksteal

# Each game's page at its start, middle and end, at 1280x800 and 390x844, into docs/screenshots/
# (Chromium at /usr/bin/chromium). `make screenshots GAMES="terrafex"` takes one game's only.
screenshots: install
	$(BIN)/python -m web.screenshots $(GAMES)

bench: install
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache
