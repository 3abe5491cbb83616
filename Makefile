# Flotilla's two commands: `make up` runs a hub on the embedded store, `make test` runs every test.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
DATA_DIR ?= .flotilla

.PHONY: up test lint install bench clean

$(BIN)/flotilla: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	@touch $@

install: $(BIN)/flotilla

# A hub with three simulated members in the foreground (Ctrl-C stops it); UP_ARGS adds flags of `flotilla up`.
up: install
	$(BIN)/flotilla up --data-dir $(DATA_DIR) $(UP_ARGS)

test: install
	$(BIN)/pytest -q tests

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: install
	$(BIN)/python bench/apiserver.py

clean:
	rm -rf $(VENV) $(DATA_DIR) .pytest_cache .mypy_cache .ruff_cache
