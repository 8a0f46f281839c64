# Arbiter: make setup | demo | test | kafka-up | kafka-down | up | schemas | bench | loadtest
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
KAFKA  := deploy/kafka/kafka.sh
KAFKA_PORT ?= 19092

.PHONY: setup demo test test-fast kafka-up kafka-down up schemas bench loadtest clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[test]"
	touch $(STAMP)

demo: setup
	$(BIN)/arbiter demo

# The whole suite, Kafka integration tests included: the kafka_bootstrap fixture starts the
# local broker (deploy/kafka) when KAFKA_BOOTSTRAP_SERVERS is unset and no Docker engine answers.
test: setup
	$(BIN)/python -m pytest -q -rs

# Unit and contract tests only (no broker).
test-fast: setup
	$(BIN)/python -m pytest -q -m "not kafka" tests/unit tests/contract

kafka-up:
	KAFKA_PORT=$(KAFKA_PORT) $(KAFKA) up

kafka-down:
	KAFKA_PORT=$(KAFKA_PORT) $(KAFKA) down

up: setup kafka-up
	$(BIN)/arbiter up --bus kafka://127.0.0.1:$(KAFKA_PORT)

schemas: setup
	$(BIN)/arbiter schemas

bench: setup
	$(BIN)/python -m loadtests.bench

loadtest: setup kafka-up
	$(BIN)/python -m loadtests.load --bus kafka://127.0.0.1:$(KAFKA_PORT)

clean:
	rm -rf $(VENV) .pytest_cache deploy/kafka/.data
