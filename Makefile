# Every target installs what it needs itself: a clean clone needs only python3.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
SRC := messages tests benchmarks

.PHONY: test lint typecheck unit demo bench bench-peers fmt clean importtime

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

test: lint typecheck unit

lint: $(STAMP)
	$(BIN)/ruff check $(SRC)
	$(BIN)/ruff format --check $(SRC)

typecheck: $(STAMP)
	$(BIN)/mypy --strict messages tests

unit: $(STAMP)
	$(BIN)/pytest

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
	rm -rf $(VENV) .venv-bench .mypy_cache .pytest_cache .ruff_cache .hypothesis build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
