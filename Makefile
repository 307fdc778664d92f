# Tessera: `make demo` to try it, `make test` to check it. See README.md.

PY ?= $(shell command -v python3.11 >/dev/null 2>&1 && echo python3.11 || echo python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.requirements-installed
TEST_STAMP := $(VENV)/.test-requirements-installed
PYTEST_ARGS ?=
PORT ?= 8000

.PHONY: help install install-test demo check test migrate worker beat clean messages

help:
	@echo "make demo     create the venv, migrate, set up the demo study, run on http://127.0.0.1:8000 (PORT=...)"
	@echo "make test     make check, then the whole test suite (SQLite; PostgreSQL when DATABASE_URL is set)"
	@echo "make check    lint (ruff), types of the pure packages (mypy), migrations in step, deploy settings"
	@echo "make migrate  apply migrations to the configured database"
	@echo "make worker   run a Celery worker (needs CELERY_BROKER_URL)"
	@echo "make beat     run Celery beat, the periodic scheduler (needs CELERY_BROKER_URL)"
	@echo "make messages update the annotator pages' catalogs (locale/hi, ja, ar) from the code, then compile them"
	@echo "make clean    remove var/ (local database, media, dev key) and .venv"

$(BIN)/python:
	$(PY) -m venv $(VENV)

# Reinstall only when requirements.txt changed since the last install.
$(STAMP): requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install -r requirements.txt
	touch $@

$(TEST_STAMP): requirements.txt requirements-test.txt | $(BIN)/python
	$(BIN)/python -m pip install -r requirements-test.txt
	touch $(STAMP) $@

install: $(STAMP)

install-test: $(TEST_STAMP)

# The demo's links use SITE_URL, which follows PORT unless SITE_URL is set.
demo: $(STAMP)
	DEBUG=1 $(BIN)/python manage.py migrate --noinput
	DEBUG=1 SITE_URL=$${SITE_URL:-http://127.0.0.1:$(PORT)} $(BIN)/python manage.py demo_setup
	DEBUG=1 SITE_URL=$${SITE_URL:-http://127.0.0.1:$(PORT)} $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

# Production-like settings for the deploy check: a real key, no debug, HTTPS only.
DEPLOY_ENV := DJANGO_SETTINGS_MODULE=config.settings DEBUG=0 SECRET_KEY=check-deploy-only-0123456789-abcdefghijklmnopqrstuvwxyz-ABCDEFGHIJ \
	ALLOWED_HOSTS=tessera.example.org SITE_URL=https://tessera.example.org \
	SECURE_SSL_REDIRECT=1 SECURE_HSTS_SECONDS=31536000 SECURE_HSTS_INCLUDE_SUBDOMAINS=1 \
	SECURE_HSTS_PRELOAD=1

check: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	DEBUG=1 $(BIN)/python manage.py makemigrations --check --dry-run
	$(DEPLOY_ENV) $(BIN)/python manage.py check --deploy --fail-level WARNING

test: check
	$(BIN)/pytest $(PYTEST_ARGS)

# The annotator pages' words (GNU gettext needed): new strings land in locale/*/LC_MESSAGES/django.po
# untranslated; translate them, run this again, and commit both the .po and the compiled .mo.
MESSAGE_LANGUAGES := hi ja ar
messages: $(STAMP)
	DEBUG=1 $(BIN)/python manage.py makemessages --no-obsolete $(addprefix -l ,$(MESSAGE_LANGUAGES)) \
		--ignore=.venv --ignore=tests --ignore=bench --ignore=var
	DEBUG=1 $(BIN)/python manage.py compilemessages --ignore=.venv

# migrate, worker and beat default to DEBUG=1 (the development key in var/) like `make demo`;
# set DEBUG=0 and SECRET_KEY in the environment to run them against a production configuration.
migrate: $(STAMP)
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py migrate --noinput

worker: $(STAMP)
	@test -n "$$CELERY_BROKER_URL" || { echo "CELERY_BROKER_URL is not set: without a broker jobs run in-process and no worker is needed." >&2; exit 1; }
	DEBUG=$${DEBUG:-1} $(BIN)/celery -A config worker -l info

beat: $(STAMP)
	@test -n "$$CELERY_BROKER_URL" || { echo "CELERY_BROKER_URL is not set: without a broker there is nothing for beat to send to." >&2; exit 1; }
	@mkdir -p var
	DEBUG=$${DEBUG:-1} $(BIN)/celery -A config beat -l info --schedule var/celerybeat-schedule

clean:
	rm -rf var $(VENV)
