# gpuledger: `make run` (daily refresh) and `make test` (whole suite) set everything up themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
MANIFEST := dbt/target/manifest.json
DBT_FILES := $(shell find dbt/models dbt/seeds dbt/macros dbt/tests -type f) dbt/dbt_project.yml dbt/profiles.yml

export DBT_SEND_ANONYMOUS_USAGE_STATS := False
export DAGSTER_DISABLE_TELEMETRY := 1
export GX_ANALYTICS_ENABLED := False

.PHONY: run test install manifest browser postgres docs perf dev lint clean

$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "gpuledger needs Python 3.11+ (set PYTHON=...)")'
	@echo "installing gpuledger and its pinned packages (constraints.txt) into $(VENV)"
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev]'
	@touch $@

install: $(STAMP)

# dbt's manifest, which the Dagster code location loads; rebuilt when the dbt project (or this
# recipe) changes.
# The warehouse named as gpuledger's runs name it to dbt (pipelines/dbt_command.py), so that a new
# home's first dbt command takes up this parse state instead of parsing the project whole.
$(MANIFEST): $(STAMP) $(DBT_FILES) Makefile
	@echo "preparing dbt's manifest"
	@cd dbt && GPULEDGER_DB_PATH=gpuledger.duckdb ../$(BIN)/dbt parse --profiles-dir . --quiet
	@touch $@

manifest: $(MANIFEST)

run: $(MANIFEST)
	@$(BIN)/gpuledger refresh

test: $(MANIFEST) browser postgres
	$(BIN)/pytest

# Debian's headless Chromium, which the report test draws the page in; installed when missing.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium for the report test"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "no chromium and no root: the report-rendering test will be skipped"; fi; }

# Debian's PostgreSQL server, which the test of Dagster's storage on PostgreSQL starts on
# 127.0.0.1 (tests/integration/test_postgres_storage.py); installed when missing.
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's postgresql for the test of Dagster's storage on PostgreSQL"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	  else echo "no PostgreSQL server and no root: the PostgreSQL storage test will be skipped"; fi; }

# Scale run (a script, not a test): prints its table and writes perf/runs/latest.md (+ .json).
perf: $(MANIFEST)
	$(BIN)/python scripts/perf_scale.py

# dbt docs as one static page, offline: $${GPULEDGER_HOME:-warehouse}/site/docs/index.html
docs: $(MANIFEST)
	$(BIN)/gpuledger docs

# Dagster UI on 127.0.0.1:3000 with the project's own DAGSTER_HOME.
dev: $(MANIFEST)
	mkdir -p $${GPULEDGER_HOME:-warehouse}/dagster_home
	DAGSTER_HOME=$$(cd $${GPULEDGER_HOME:-warehouse} && pwd)/dagster_home $(BIN)/dagster dev -h 127.0.0.1 -p 3000

lint: $(STAMP)
	$(BIN)/ruff check pipelines sources warehouse tests scripts
	$(BIN)/ruff format --check pipelines sources warehouse tests scripts
	cd dbt && GPULEDGER_DB_PATH=$$(mktemp -d)/lint.duckdb ../$(BIN)/sqlfluff lint models

clean:
	rm -rf $(VENV) dbt/target dbt/logs
