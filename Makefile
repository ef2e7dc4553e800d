# The two commands: `make run` and `make test`. Both create .venv and install Booth first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
DEMO_DIR ?= demo-hall

DIST ?= dist
VERSION := $(shell sed -n 's/^__version__ = "\(.*\)"/\1/p' pos/__init__.py)

.PHONY: run test lint typecheck importlint unit bench clean dist

$(STAMP): pyproject.toml
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "python3-venv is missing: installing it"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv \
	      && $(PYTHON) -m venv $(VENV); \
	  else \
	    echo "Cannot create a virtualenv: run 'sudo apt-get install python3-venv' and retry"; exit 1; \
	  fi; }
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/booth demo --dir $(DEMO_DIR) --live 15

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

importlint: $(STAMP)
	$(BIN)/lint-imports

unit: $(STAMP)
	$(BIN)/pytest

test: lint typecheck importlint unit

bench: $(STAMP)
	for b in bench/*.py; do $(BIN)/python $$b || exit 1; done

# What a hall copies: the wheel and the sdist (python -m build), and a Debian package built
# from them with dpkg-deb (packaging/deb/build-deb.sh). --no-isolation: the build backend
# comes from .venv (the test extras), so building needs no network.
dist: $(STAMP)
	rm -f $(DIST)/booth-$(VERSION)* $(DIST)/booth_$(VERSION)-*
	$(BIN)/python -m build --no-isolation --outdir $(DIST) .
	bash packaging/deb/build-deb.sh --wheel $(DIST)/booth-$(VERSION)-py3-none-any.whl --out $(DIST)
	@ls -l $(DIST)

clean:
	rm -rf $(VENV) $(DEMO_DIR) $(DIST) build .pytest_cache .mypy_cache .ruff_cache
