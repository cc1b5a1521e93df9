# gridmarket: `make run` runs the default scenario, `make test` runs lint, the test suite and builds
# the documentation site (--strict); `make docs` serves the site at http://127.0.0.1:8000.
# Both create .venv first, with a Python >= 3.12 found on this machine (see find-python below);
# `make PYTHON=/path/to/python3.12 run` picks one by hand.
SHELL := /bin/bash
# MkDocs 1.x and Material print a banner about MkDocs 2 on every build; the build is unchanged.
export NO_MKDOCS_2_WARNING := 1
export DISABLE_MKDOCS_2_WARNING := true
VENV ?= .venv
BIN := $(VENV)/bin
SCENARIO ?= scenarios/profit/default.yaml
PYTHON ?=

.PHONY: run test lint bench bench-suite venv clean docs docs-data docs-results docs-reference

run: venv
	$(BIN)/gridmarket run $(SCENARIO)

test: venv
	$(BIN)/ruff check market agents dashboards envs examples tests
	$(BIN)/lint-imports
	$(BIN)/pytest
	$(BIN)/mkdocs build --strict --quiet

lint: venv
	$(BIN)/ruff check market agents dashboards envs examples tests
	$(BIN)/lint-imports
	$(BIN)/ruff format --check market agents dashboards envs examples tests

# Speed figures (tests/benchmarks), run on demand, never in CI. `make bench`: the EASY replay of
# SDSC-SP2 beside the minimal reference loop, start-up and memory, each with its target, written
# to docs/benchmarks.md (BENCH_ARGS adds e.g. --synthetic --callgrind --accasim PYTHON --cqsim
# DIR); `make bench-suite`: every pytest benchmark (SUITE=... for some), timed in CPU seconds,
# its table written to docs/benchmarks.md too.
BENCH_ARGS ?=
SUITE ?= tests/benchmarks
bench: venv
	$(BIN)/python tests/benchmarks/compare.py --markdown docs/benchmarks.md $(BENCH_ARGS)

bench-suite: venv
	mkdir -p build
	$(BIN)/pytest $(SUITE) --benchmark-enable --benchmark-only -p no:cacheprovider \
	  --benchmark-timer time.process_time --benchmark-json build/bench-suite.json
	$(BIN)/python tests/benchmarks/suite_table.py build/bench-suite.json \
	  --markdown docs/benchmarks.md --command "make bench-suite SUITE='$(SUITE)'"

# The documentation site (mkdocs.yml, docs/): served with live reload; built into build/site.
docs: venv
	$(BIN)/mkdocs serve

# The small result sets behind the results pages (needs the SWF traces), then the pages' tables.
docs-data: venv
	GRIDMARKET=$(BIN)/gridmarket bash docs/results/make_data.sh

docs-results: venv
	GRIDMARKET=$(BIN)/gridmarket bash docs/results/make_pages.sh

# The generated reference pages' copies in docs/reference (the site makes its own when built).
docs-reference: venv
	$(BIN)/python docs/gen_ref.py

# The venv, and the capacity profile's inner loops compiled for the current source if they are not
# yet (market/core/compiled.py; without a C compiler they run in Python: slower, same results).
venv: $(VENV)/.installed
	@$(BIN)/gridmarket compile --quiet || echo "warning: the profile kernel runs in Python (slower, same results)" >&2

# The interpreter: $(PYTHON) if given, else the first that is >= 3.12 of python3.13, python3.12,
# python3 and pyenv's versions (newest first). Fails with a clear message when there is none.
$(VENV)/.installed: pyproject.toml
	@set -e; \
	ok() { command -v "$$1" >/dev/null 2>&1 && "$$1" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; }; \
	if [ -x "$(BIN)/python" ] && ! ok "$(BIN)/python"; then echo "removing $(VENV): its Python is older than 3.12"; rm -rf "$(VENV)"; fi; \
	if [ ! -x "$(BIN)/python" ]; then \
	  py=""; \
	  for c in $(PYTHON) python3.13 python3.12 python3 \
	      $$(ls -d "$${PYENV_ROOT:-$$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python 2>/dev/null | sort -rV); do \
	    if ok "$$c"; then py="$$c"; break; fi; \
	  done; \
	  if [ -z "$$py" ]; then \
	    echo "error: gridmarket needs Python >= 3.12 and found none (tried PYTHON, python3.13, python3.12, python3 and pyenv's versions); install one or run 'make PYTHON=/path/to/python3.12'" >&2; \
	    exit 1; \
	  fi; \
	  echo "creating $(VENV) with $$py ($$("$$py" -c 'import sys; print(sys.version.split()[0])'))"; \
	  "$$py" -m venv "$(VENV)"; \
	fi; \
	$(BIN)/python -m pip install --quiet --upgrade pip; \
	$(BIN)/python -m pip install --quiet -e '.[dev,compiled]'; \
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis .benchmarks build/site docs/results/figures
