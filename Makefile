# uncompile's runner. The work is done by tools/envs.py (interpreters and environments) and
# tools/matrix.py (lint and the test matrix); any Python 3.8+ can start them.
#
#   make demo   set up the torch environment (.venv) and run examples/demo.py
#   make test   set up every environment, lint, run the tests under CPython 3.8 ... 3.15
#   make lint   ruff + mypy only
#
# UNCOMPILE_PYTHONS="3.8 3.12" limits the interpreters, UNCOMPILE_JOBS=2 tests two at a time;
# CI=true (set by .ci/run) requires every interpreter.

PYENV_ROOT ?= $(shell pyenv root 2>/dev/null || echo $$HOME/.pyenv)
BOOTSTRAP := $(firstword $(wildcard $(PYENV_ROOT)/versions/3.11*/bin/python3.11) \
               $(shell command -v python3.11 python3 2>/dev/null))

.PHONY: help demo test lint torch-env bootstrap clean

help:
	@echo "make demo   set up .venv (Python 3.11 + torch) and run examples/demo.py"
	@echo "make test   set up all environments, lint, run the tests on CPython 3.8 ... 3.15"
	@echo "make lint   ruff + mypy"

demo: torch-env
	.venv/bin/python examples/demo.py

test: bootstrap
	$(BOOTSTRAP) tools/matrix.py test

lint: bootstrap
	$(BOOTSTRAP) tools/matrix.py lint

torch-env: bootstrap
	$(BOOTSTRAP) tools/envs.py torch

bootstrap:
	@test -n "$(BOOTSTRAP)" || { echo "no Python 3 found (pyenv or PATH); install Python 3.11" >&2; exit 1; }

clean:
	rm -rf out build dist .mypy_cache .ruff_cache
