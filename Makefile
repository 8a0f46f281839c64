# Arbiter: make setup | ui | demo | test | kafka-up | kafka-down | up | schemas | bench | loadtest | recovery
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
KAFKA  := deploy/kafka/kafka.sh
# The broker a person runs (make kafka-up / make up); tests start their own elsewhere.
KAFKA_PORT            ?= 19092
KAFKA_CONTROLLER_PORT ?= 19093
KAFKA_DATA_DIR        ?= $(CURDIR)/deploy/kafka/.data
KAFKA_ENV := KAFKA_PORT=$(KAFKA_PORT) KAFKA_CONTROLLER_PORT=$(KAFKA_CONTROLLER_PORT) KAFKA_DATA_DIR=$(KAFKA_DATA_DIR)

.PHONY: ui setup demo test test-fast kafka-up kafka-down up schemas bench loadtest recovery clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[test]"
	touch $(STAMP)

demo: setup
	$(BIN)/arbiter demo

# Rebuild the browser pages' bundle (services/gateway/static, committed) from the locked npm
# packages of services/gateway/web; only after changing those: CI and users need no npm.
ui:
	cd services/gateway/web && npm ci --no-audit --no-fund && node build.mjs

# The whole suite, Kafka integration tests included: the kafka_bootstrap fixture starts a broker
# of its own (deploy/kafka on free ports, temporary data folder, stopped at the end) when
# KAFKA_BOOTSTRAP_SERVERS is unset and no Docker engine answers; it never uses the kafka-up one.
test: setup
	$(BIN)/python -m pytest -q -rs

# Unit and contract tests only (no broker).
test-fast: setup
	$(BIN)/python -m pytest -q -m "not kafka" tests/unit tests/contract

kafka-up:
	$(KAFKA_ENV) $(KAFKA) up

kafka-down:
	$(KAFKA_ENV) $(KAFKA) down

up: setup kafka-up
	$(BIN)/arbiter up --bus kafka://127.0.0.1:$(KAFKA_PORT)

schemas: setup
	$(BIN)/arbiter schemas

bench: setup
	$(BIN)/python -m loadtests.bench

# Open-loop load test of the move path: services as processes on a broker of its own, a
# bare-Kafka baseline, the audit of the run; writes .bench/loadtest.json and .bench/loadtest.png. The
# bench extra (matplotlib, psutil, orjson) is installed on first use.
BENCH_STAMP := $(VENV)/.bench-stamp

$(BENCH_STAMP): pyproject.toml $(STAMP)
	$(BIN)/pip install -q -e ".[test,bench]"
	touch $(BENCH_STAMP)

loadtest: $(BENCH_STAMP)
	$(BIN)/python -m loadtests.load --games 10000 --move-every 5 --duration 30 \
		--rates 200,400,800,1000,1200,1600,2000 --json .bench/loadtest.json

# Restart time of the game process after kill -9 against log size (10k, 100k, 1M messages),
# snapshot + tail beside a replay from the start; a broker of its own; .bench/recovery.json + .png.
recovery: $(BENCH_STAMP)
	$(BIN)/python -m loadtests.recovery --sizes 10000,100000,1000000 --json .bench/recovery.json

clean:
	rm -rf $(VENV) .pytest_cache deploy/kafka/.data
