# Every target installs what it needs itself: a clean clone needs only python3.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
SRC := messages tests benchmarks examples

.PHONY: test lint typecheck unit versions demo bench bench-peers fmt clean importtime dist distcheck postgres

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

test: lint typecheck versions distcheck

lint: $(STAMP)
	$(BIN)/ruff check $(SRC)
	$(BIN)/ruff format --check $(SRC)

typecheck: $(STAMP)
	$(BIN)/mypy --strict messages tests benchmarks examples

unit: $(STAMP)
	$(BIN)/pytest

# The suite on the dev venv's Python and on every other CPython the package admits
# that is on this machine (python3.N on PATH or in ~/.pyenv/versions), each in a
# venv of its own (.venv-3.N); JOBS suites at a time. Prints which versions ran and
# which are missing; a missing one is skipped, a failed one fails.
JOBS ?= 2
versions: $(STAMP)
	$(BIN)/python tests/run_versions.py --dev $(BIN)/python --jobs $(JOBS)

# A wheel and an sdist in dist/, built from this tree with the pinned dev tools.
dist: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build --no-isolation --outdir dist . > /dev/null

# Install the wheel into a fresh venv outside the clone and run the smoke test from
# there: every module imports from site-packages, the data files are there, and the
# console script and `python -m messages` work. A packaging mistake fails here.
distcheck: dist
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(PY) -m venv "$$tmp/venv" && \
	"$$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check --no-index dist/*.whl && \
	cp tests/smoke_installed.py "$$tmp/" && \
	cd "$$tmp" && "$$tmp/venv/bin/python" smoke_installed.py "$(CURDIR)"

# A throwaway PostgreSQL server (as the tests start one) until Ctrl-C; it prints the
# DSN to give the tests as MESSAGES_TEST_POSTGRES_DSN, so runs can share it.
postgres: $(STAMP)
	$(BIN)/python -m tests.postgres_server

demo: $(STAMP)
	$(BIN)/python examples/demo.py

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py --json benchmarks/results.json

bench-peers:
	test -x .venv-bench/bin/python || $(PY) -m venv .venv-bench
	.venv-bench/bin/python -m pip install -q --disable-pip-version-check -e '.[bench]'
	.venv-bench/bin/python benchmarks/peers.py --json benchmarks/peers.json

importtime: $(STAMP)
	$(BIN)/python -X importtime -c 'import messages' 2>&1 | tail -n 15

fmt: $(STAMP)
	$(BIN)/ruff format $(SRC)
	$(BIN)/ruff check --fix $(SRC)

clean:
	rm -rf $(VENV) .venv-3.* .venv-bench .mypy_cache .pytest_cache .ruff_cache .hypothesis build dist *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
