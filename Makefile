# Scrapyard: `make run` serves the API with a Celery worker and beat; `make test` runs the suite.
# Both create .venv and install the pinned requirements first. With no DATABASE_URL / REDIS_URL
# they use the embedded default: SQLite and Celery's filesystem broker under var/.

PYTHON ?= python3
# 127.0.0.1 unless you mean to serve others: HOST=0.0.0.0 (then set DJANGO_ALLOWED_HOSTS too).
HOST ?= 127.0.0.1
PORT ?= 8000
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.requirements-installed

.PHONY: install migrate run worker test bench clean

$(STAMP): requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

install: $(STAMP)

migrate: install
	$(BIN)/python manage.py migrate --noinput

# The web server in the foreground, one Celery worker with the beat scheduler embedded in the
# background; Ctrl-C stops both. Beyond one machine, run `celery -A project worker` on each and
# one `celery -A project beat` (the sweeper it drives is idempotent, so a second beat is harmless).
run: migrate
	$(BIN)/python manage.py collectstatic --noinput --verbosity 0
	@echo "Scrapyard on http://$(HOST):$(PORT)/api/ (Ctrl-C stops the server and the worker)"
	trap 'kill 0' EXIT INT TERM; \
	$(BIN)/celery -A project worker --beat --loglevel=WARNING --concurrency=2 \
		--schedule=var/celerybeat-schedule & \
	$(BIN)/gunicorn project.wsgi --bind $(HOST):$(PORT) --workers 2 --timeout 60 --access-logfile -

worker: install
	$(BIN)/celery -A project worker --loglevel=INFO

test: install
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python -m bench.run

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache
