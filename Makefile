# The two commands: `make run` and `make test` (and `make check`, the fast part of `make test`).
# Each sets up what it needs first, once: the Debian packages (checked with dpkg-query on every
# run, installed with apt-get only when one is missing), .venv with Booth, and the npm packages of
# the PouchDB tests. tests/test_setup.py checks these lists against what the tests use.
PYTHON ?= python3
# Python writes its bytecode caches (__pycache__, git-ignored) under make even where the shell
# says not to (PYTHONDONTWRITEBYTECODE, set in many container images): the suite starts over a
# thousand Python processes, and without the caches each one compiles every module it imports
# again (make check: 90 s of CPU with it set, 76 s without, 2026-12-05), as would `booth`.
unexport PYTHONDONTWRITEBYTECODE
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
POUCH := tests/sync/pouch
NPM_STAMP := $(POUCH)/node_modules/.installed-stamp
DEMO_DIR ?= demo-hall

DIST ?= dist
VERSION := $(shell sed -n 's/^__version__ = "\(.*\)"/\1/p' pos/__init__.py)

# Debian packages. `make run`: python3-venv (.venv), and Mesa's EGL/GL with mtdev for Kivy's touch
# screens (libgl1-mesa-dri: software rendering, also the UI tests' offscreen rendering).
RUN_DEBS := python3-venv libgl1 libegl1 libgl1-mesa-dri libmtdev1
# The tests, besides: iproute2 (ip: the network-namespace sync tests), util-linux and mount
# (unshare, mount: backups onto a read-only stick), poppler-utils (pdftoppm, pdftotext: the day
# report's PDF), fonts-dejavu-core (receipt PNGs), dpkg-deb, shellcheck, systemd
# (systemd-analyze, systemctl --root), passwd (useradd --prefix) and logrotate: the packaging
# tests. chromium and chromium-driver: the manager's phone in a real browser (tests/web), and
# libnss3-tools (certutil): that browser trusts the hall's web certificate authority. And node with npm (below) for the PouchDB tests: Debian's nodejs when no node is there.
# gcc: the test extra essp6 (ITL's SSP host library, the SSP tests' outside check) builds its C.
# git, make and apt: test_release runs `make release` in a copy of the tree, and asks apt which
# of two releases' .debs it takes.
TEST_DEBS := $(RUN_DEBS) python3-minimal iproute2 util-linux mount poppler-utils fonts-dejavu-core dpkg \
	shellcheck systemd passwd logrotate chromium chromium-driver libnss3-tools gcc git make apt tar
# `make release`: git (a release is built from a commit) and dpkg-deb.
RELEASE_DEBS := $(RUN_DEBS) git dpkg
NPM_CI := npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

.PHONY: run test check lint typecheck importlint unit fast setup debs-run debs-test bench \
	clean dist release debs-release

# $(1): Debian packages; $(2): `node` to add nodejs and npm when no node or npm is on the PATH
# (one installed another way is kept). Those not installed are installed as root with apt-get;
# anyone else is told the one line to run, and make stops.
define ensure_debs
	@wanted="$(strip $(1))"; \
	if [ "$(2)" = node ]; then \
	  command -v node >/dev/null || wanted="$$wanted nodejs"; \
	  command -v npm >/dev/null || wanted="$$wanted npm"; \
	fi; \
	installed=" $$(dpkg-query -W -f='$${Package} $${db:Status-Abbrev}\n' $$wanted 2>/dev/null \
	  | awk '$$2 == "ii" { printf "%s ", $$1 }')"; \
	missing=""; \
	for p in $$wanted; do case "$$installed" in *" $$p "*) ;; *) missing="$$missing $$p";; esac; \
	done; \
	[ -z "$$missing" ] && exit 0; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "Installing Debian packages:$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  log=$$(apt-get update -qq 2>&1 \
	    && apt-get install -y -qq --no-install-recommends $$missing 2>&1) \
	    || { echo "$$log" >&2; echo "apt-get could not install:$$missing" >&2; exit 1; }; \
	else \
	  echo "Missing Debian packages:$$missing. Install them, then run make again:" >&2; \
	  echo "  sudo apt-get install -y --no-install-recommends$$missing" >&2; \
	  exit 1; \
	fi
endef

debs-run:
	$(call ensure_debs,$(RUN_DEBS))

debs-test:
	$(call ensure_debs,$(TEST_DEBS),node)

debs-release:
	$(call ensure_debs,$(RELEASE_DEBS))

$(STAMP): pyproject.toml | debs-run
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

# PouchDB, pouchdb-server and undici for the interop tests and bench/sync.py, as locked. No
# install scripts: none is needed (leveldown ships its prebuilt binaries; the sqlite3 backend of
# pouchdb-server is never loaded).
$(NPM_STAMP): $(POUCH)/package.json $(POUCH)/package-lock.json | debs-test
	cd $(POUCH) && $(NPM_CI)
	@touch $(NPM_STAMP)

# Everything the tests need.
setup: debs-test $(STAMP) $(NPM_STAMP)

run: debs-run $(STAMP)
	$(BIN)/booth demo --dir $(DEMO_DIR) --live 15

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

importlint: $(STAMP)
	$(BIN)/lint-imports

# The tests run in worker processes (pytest-xdist): -n 3 on the 2-core development machine, where
# part of the suite waits on other processes (stations, Node, chromium) and part is CPU bound
# (Kivy's software rendering): make check's tests took 55 s at -n 3, 59-65 s at -n 4 on the
# idle machine (2026-12-05). --dist loadgroup keeps the tests of one xdist_group
# on one worker, one at a time. Here, not in addopts: `pytest tests/x.py` alone runs in one process.
# `make test XDIST=` runs the suite in one process; `XDIST="-n 4"` another count.
XDIST ?= -n 3 --dist loadgroup

# The whole suite.
unit: setup
	$(BIN)/pytest $(XDIST)

# The suite without the tests marked slow (processes, namespaces, Kivy, packaging, crash loops).
fast: setup
	$(BIN)/pytest -m "not slow" $(XDIST)

test: lint typecheck importlint unit

check: lint typecheck importlint fast

bench: setup
	for b in bench/*.py; do $(BIN)/python $$b || exit 1; done

# What a hall copies: the wheel and the sdist (python -m build), and a Debian package built
# from them with dpkg-deb (packaging/deb/build-deb.sh). --no-isolation: the build backend
# comes from .venv (the test extras), so building needs no network.
dist: debs-test $(STAMP)
	rm -f $(DIST)/booth-$(VERSION)* $(DIST)/booth_$(VERSION)-*
	$(BIN)/python -m build --no-isolation --outdir $(DIST) .
	bash packaging/deb/build-deb.sh --wheel $(DIST)/booth-$(VERSION)-py3-none-any.whl --out $(DIST)
	@ls -l $(DIST)

# A release (README "Releases"): checks that pos/__init__.py's version, CHANGELOG.md's section
# for it and the git tags agree, builds the sdist, wheel and .deb of the commit (HEAD, never
# uncommitted files) into $(DIST), and prints each artefact with the version it carries.
release: debs-release $(STAMP)
	$(BIN)/python packaging/release.py --out $(DIST)

clean:
	rm -rf $(VENV) $(DEMO_DIR) $(DIST) build .pytest_cache .mypy_cache .ruff_cache \
	  $(POUCH)/node_modules
