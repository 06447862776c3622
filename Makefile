# Rookery's commands. `make demo` and `make test` set up everything they need on a fresh clone.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
PROTO_FILES := $(wildcard proto/rookery/v1/*.proto)
SETUP_STAMP := $(VENV)/.rookery-setup
PROTO_STAMP := gen/python/.stamp
NODE_STAMP := node_modules/.rookery-stamp
RAY_STAMP := $(VENV)/.rookery-ray
RL_TEST_STAMP := $(VENV)/.rookery-rl-test
# The native Rook core (core/, Rust with PyO3), built by maturin into the venv where cargo is found.
CORE_STAMP := $(VENV)/.rookery-core
CORE_SOURCES := $(wildcard core/src/*.rs) core/Cargo.toml core/Cargo.lock core/pyproject.toml core/rookery_core.pyi
# The benchmark's side venv: OpenSpiel's pyspiel, the reference of bench/engine_bench.py.
OPENSPIEL_VENV := build/openspiel-venv
OPENSPIEL_STAMP := $(OPENSPIEL_VENV)/.rookery-stamp
PYTEST_ARGS ?=
# The suite runs on this many pytest-xdist worker processes (one per core of a 2-core machine);
# PYTEST_WORKERS=0 runs it in one process. Three saved a minute of 23, but a league test's
# qualifying deadline then ran out once under the load.
PYTEST_WORKERS ?= 2
# The Debian packages of the test suites, by suite: the C++ kit (gRPC, protobuf, GoogleTest,
# CMake, g++), the browser tests (Chromium and a font), the launched bots' sandbox (bubblewrap).
# `make setup` and `make demo` need none of them (Python 3.11+ alone); `make test` installs them
# (`make system-deps`). README.md says what they are called on macOS and other distributions.
KIT_PACKAGES := protobuf-compiler libprotobuf-dev libgrpc++-dev protobuf-compiler-grpc \
  libgtest-dev cmake g++
BROWSER_PACKAGES := chromium fonts-dejavu-core
SANDBOX_PACKAGES := bubblewrap
SYSTEM_PACKAGES ?= $(KIT_PACKAGES) $(BROWSER_PACKAGES) $(SANDBOX_PACKAGES)
# The oldest Python `make setup` makes the venv with.
PYTHON_MINIMUM := 3.11

.PHONY: system-deps setup setup-ray demo test lint pytest bench proto buf-lint buf-breaking ladder pimc-match soak dist clean help

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

system-deps: ## install the test suites' missing Debian packages (apt-get as root; nothing when all are there)
	@missing=$$(for p in $(SYSTEM_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' "$$p" 2>/dev/null | grep -q '^install ok installed$$' || echo "$$p"; \
	done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	missing=$$(echo $$missing); \
	if ! command -v apt-get >/dev/null; then \
	  echo "system-deps: not a Debian system; install these packages or their equivalents: $$missing" >&2; exit 1; fi; \
	if [ "$$(id -u)" = 0 ]; then sudo=; \
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo=sudo; \
	else echo "system-deps: missing Debian packages: $$missing; run as root: apt-get install $$missing" >&2; exit 1; fi; \
	echo "system-deps: installing $$missing"; \
	$$sudo apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing

# No system package: Python 3.11+ is all it needs (the native core needs a Rust toolchain, else
# the pure engine is used; buf needs npm, else `make lint` installs it).
setup: $(SETUP_STAMP) $(PROTO_STAMP) $(CORE_STAMP) ## create .venv, install, generate the stubs and build the native core
	@# What the engine's and the playout model's mypyc builds (removed: the native core) left in a
	@# clone set up before: an extension module there would be imported instead of its source.
	@rm -f engine/rookery/engine/*.so engine/rookery/engine/_native.json \
	  clients/python/rookery/client/bots/*.so clients/python/rookery/client/bots/_native.json
	@if command -v npm >/dev/null; then $(MAKE) --no-print-directory $(NODE_STAMP); \
	else echo "setup: no npm on PATH: make lint's buf needs Node 20+ (the rest is ready)" >&2; fi

$(SETUP_STAMP): pyproject.toml constraints.txt
	@test -x $(PY) || $(PYTHON) -c 'import sys; sys.exit(sys.version_info < tuple(map(int, "$(PYTHON_MINIMUM)".split("."))))' 2>/dev/null || { \
	  echo "setup: Rookery needs Python $(PYTHON_MINIMUM) or later; $(PYTHON) is $$($(PYTHON) --version 2>/dev/null || echo "not found")" >&2; \
	  echo "setup: name another one, e.g. make demo PYTHON=python3.12 (macOS: brew install python@3.12)" >&2; exit 1; }
	@test -x $(PY) || $(PYTHON) -c 'import ensurepip, venv' 2>/dev/null || { \
	  echo "setup: $(PYTHON) cannot make a venv (no ensurepip); on Debian or Ubuntu: apt-get install python3-venv" >&2; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	@# The distribution was called `rookery` before it became `rookery-arena`: drop the old one.
	@$(PY) -m pip uninstall --quiet --yes rookery 2>/dev/null || true
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev,rl]'
	@touch $@

# The learning test's trainer (sb3-contrib and torch, a few GB): installed for the tests only.
$(RL_TEST_STAMP): $(SETUP_STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev,rl,rl-test]'
	@touch $@

setup-ray: $(RAY_STAMP) ## install the optional Ray extra (the Ray backend's tests and bench)

$(RAY_STAMP): $(SETUP_STAMP)
	$(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev,ray]'
	@touch $@

# The native core: a release build (cargo's cache in build/core-target; about 20 s of CPU from
# scratch), installed as a wheel. Without a Rust toolchain, or when the build fails, it says so
# once and the pure engine is used (it is then retried each time; the core's tests fail where
# cargo is found but the core is not built).
$(CORE_STAMP): $(CORE_SOURCES) $(SETUP_STAMP)
	@if ! command -v cargo >/dev/null; then \
	  echo "rookery-core: no Rust toolchain (cargo) found: the pure engine is used"; \
	elif rm -rf build/core-wheel && \
	  CARGO_TARGET_DIR=build/core-target $(BIN)/maturin build --quiet --release --locked \
	    -m core/Cargo.toml -o build/core-wheel -i $(PY) && \
	  $(PY) -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
	    build/core-wheel/rookery_core-*.whl; then \
	  touch $@; \
	else \
	  echo "rookery-core: the build failed (above): the pure engine is used"; \
	fi

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

proto: $(PROTO_STAMP) ## regenerate the Python stubs from proto/

# The stubs, and the field numbers of every message for the hand-made codecs (rookery.wire.fastpath)
# and for the core's request codec (core/src/field_numbers.rs, committed: the core builds without
# protoc; tests/wire holds it equal to the generator's output).
$(PROTO_STAMP): $(PROTO_FILES) wire/generate_field_numbers.py $(SETUP_STAMP)
	rm -rf gen/python && mkdir -p gen/python
	$(PY) -m grpc_tools.protoc -I proto \
	  --python_out=gen/python --grpc_python_out=gen/python \
	  --plugin=protoc-gen-mypy=$(BIN)/protoc-gen-mypy --mypy_out=gen/python \
	  --plugin=protoc-gen-mypy_grpc=$(BIN)/protoc-gen-mypy_grpc --mypy_grpc_out=gen/python \
	  $(PROTO_FILES)
	$(PY) wire/generate_field_numbers.py proto gen/python --rust core/src/field_numbers.rs
	@touch $@

demo: setup ## the main job: a demo tournament of the reference bots, with ratings and a report
	$(BIN)/rookery demo

test: system-deps setup lint pytest ## lint, type-check and run every test suite

lint: setup $(RAY_STAMP) $(RL_TEST_STAMP) buf-lint buf-breaking ## ruff, mypy and buf lint/breaking
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy $(wildcard engine wire server arena web clients/python cli envs bench)
	@# Each test folder is its own import root (sibling helper modules, one conftest.py each).
	@for d in tests/*/; do echo "mypy $$d"; MYPYPATH=$$d $(BIN)/mypy $$d || exit 1; done

buf-lint: $(NODE_STAMP)
	npx --no-install buf lint

buf-breaking: $(NODE_STAMP) ## compare the contract with the previous commit's
	@if git rev-parse -q --verify HEAD~1 >/dev/null && git cat-file -e HEAD~1:buf.yaml 2>/dev/null; then \
	  echo "buf breaking against HEAD~1"; npx --no-install buf breaking --against '.git#ref=HEAD~1'; \
	else echo "buf breaking: no previous contract to compare with"; fi

# Every test with Game on the native core where it is built, then the engine's, the wire layer's,
# the server's and the SDK's on the pure engine (ROOKERY_PURE_ENGINE=1).
pytest: system-deps setup setup-ray $(RL_TEST_STAMP)
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup -m "not alone" $(PYTEST_ARGS)
	$(BIN)/pytest -m alone $(PYTEST_ARGS)
	ROOKERY_PURE_ENGINE=1 $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup tests/engine tests/wire tests/server tests/client $(PYTEST_ARGS)

# BASELINE=REF: the ref built as it was to compare with (bench/baseline_tree.py; default d917ed0);
# BASELINE=none skips it.
bench: setup setup-ray $(OPENSPIEL_STAMP) ## performance figures (engine, server, arena), against d917ed0 built in the same run
	$(PY) bench/run.py $(if $(BASELINE),--baseline $(BASELINE))

$(OPENSPIEL_STAMP): bench/openspiel-requirements.txt
	@test -x $(OPENSPIEL_VENV)/bin/python || $(PYTHON) -m venv $(OPENSPIEL_VENV)
	$(OPENSPIEL_VENV)/bin/pip install --quiet --disable-pip-version-check -r bench/openspiel-requirements.txt
	@touch $@

ladder: setup ## duplicate matches random vs heuristic vs pimc, Elo ± 95 % CI
	$(PY) bench/ladder.py

POLICY ?= pimc
pimc-match: setup ## pimc (POLICY=ddpimc: double-dummy pimc) on the core vs the pure engine's pimc (BASELINE=TREE: that built tree's), 600 duplicate pairs (~2 h)
	$(PY) bench/pimc_builds_match.py --pairs 600 --jobs 2 --policy $(POLICY) $(if $(BASELINE),--baseline $(BASELINE) --out runs/$(POLICY)-baseline.jsonl,--out runs/$(POLICY)-builds.jsonl)

soak: setup ## a bounded soak: 2,000 games or ten minutes, throughput and server memory over time
	$(PY) bench/soak.py

# The sdist, and the wheel built from it: with the native core where cargo is found (a platform
# wheel, cp311-abi3-manylinux_*), else pure (py3-none-any, and the build says so); hatch_build.py.
dist: $(SETUP_STAMP) ## build the sdist and the wheel (with the native core where cargo is found) into dist/
	rm -rf dist
	CARGO_TARGET_DIR=$(CURDIR)/build/core-target $(PY) -m build --no-isolation --outdir dist .
	@ls dist
	@# The core's wheel: auditwheel's reading of the glibc its symbols need (manylinux2014 with zig).
	@if ls dist/*-manylinux*.whl >/dev/null 2>&1; then $(PY) -m auditwheel show dist/*.whl; fi

clean: ## remove the venv, generated code and caches
	@# What the mypyc builds (removed) left in a clone set up before.
	rm -f engine/rookery/engine/*.so engine/rookery/engine/_native.json \
	  clients/python/rookery/client/bots/*.so clients/python/rookery/client/bots/_native.json
	rm -f server/rookery/server/*.so server/rookery/server/_native.json wire/rookery/wire/*.so \
	  wire/rookery/wire/_native.json clients/python/rookery/client/*.so clients/python/rookery/client/_native.json
	rm -rf $(VENV) gen node_modules .mypy_cache .ruff_cache .pytest_cache build/engine-native build/playouts-native build/wire-native build/client-native build/server-native build/core-target build/core-wheel
