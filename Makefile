# Flotilla's two commands: `make up` runs a hub on the embedded store, `make test` runs every test.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
DATA_DIR ?= .flotilla

.PHONY: up test lint install system-packages bench clean

# Two install levels: what running Flotilla needs (`make up`), and the test and lint tools on top.
$(BIN)/flotilla: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e .
	@touch $@

$(VENV)/.dev-installed: $(BIN)/flotilla
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev]'
	@touch $@

install: $(VENV)/.dev-installed

# Debian packages the tests run beside Flotilla: etcd (the etcd storage backend's tests start one on
# loopback), chromium and chromium-driver (the dashboard's browser tests drive a headless one).
# Installed with apt-get when missing (as root, or through sudo); otherwise says how.
system-packages:
	@command -v etcd >/dev/null && command -v etcdctl >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null; then SUDO=sudo; else \
	    echo "etcd is missing: install Debian's etcd-server and etcd-client packages" >&2; exit 1; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq etcd-server etcd-client; }
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null; then SUDO=sudo; else \
	    echo "chromium is missing: install Debian's chromium and chromium-driver packages" >&2; exit 1; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium chromium-driver; }

# A hub with three simulated members in the foreground (Ctrl-C stops it); UP_ARGS adds flags of `flotilla up`.
up: $(BIN)/flotilla
	$(BIN)/flotilla up --data-dir $(DATA_DIR) $(UP_ARGS)

# Two workers, a test file each at a time: the integration tests mostly wait on the processes they start,
# so two files side by side halve the wall time on a 2-core machine without starving those processes.
test: install
	$(BIN)/pytest -q -n 2 --dist loadfile tests

lint: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: install
	$(BIN)/python bench/apiserver.py

clean:
	rm -rf $(VENV) $(DATA_DIR) .pytest_cache .mypy_cache .ruff_cache
