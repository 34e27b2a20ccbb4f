# Every target sets up what it needs in .venv first, so each works on a fresh clone.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PLUGINS := $(wildcard plugins/mathhammer-*)

.DEFAULT_GOAL := help

.PHONY: help  ## list the targets
help:
	@grep -E '^\.PHONY: [a-z-]+  ## ' $(MAKEFILE_LIST) | sed -E 's/^\.PHONY: ([a-z-]+)  ## (.*)/  make \1\t\2/' | expand -t 22

$(BIN)/python:
	@echo "==> Creating the virtual environment $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The core is built by maturin on its own first, so its progress shows: the
# first build compiles for about a minute on 2 cores with nothing else to say.
# pip's editable install after it runs cargo with the same features and finds
# everything built (the same goes for `make dist`).
.PHONY: install  ## build the Rust core and install it with every plugin under plugins/
install: $(BIN)/python
	@# An extension built before the core became one abi3 module (_core.abi3.so)
	@# would be imported ahead of it: Python tries the version-tagged name first.
	@rm -f python/mathhammer/_core.cpython-*.so
	@echo "==> Installing the build tools (maturin, setuptools, build) into $(VENV)"
	$(BIN)/pip install --quiet 'maturin>=1.7,<2' 'setuptools>=77' 'build>=1.2'
	@echo "==> Building the Rust core in release mode (about a minute on 2 cores the first time, seconds after)"
	$(BIN)/maturin build --interpreter $(BIN)/python --compatibility off
	@echo "==> Installing mathhammer, its dependencies and every plugin under plugins/ into $(VENV), editable"
	$(BIN)/pip install --quiet --no-build-isolation -e '.[dev]' $(foreach p,$(PLUGINS),-e $(p))

.PHONY: dist  ## install, then build every distribution and a PEP 503 index into dist/ (see scripts/dist.py)
dist: install
	$(BIN)/python scripts/dist.py

.PHONY: demo  ## install, then simulate 10 boltguns into 10 two-wound models (1,000,000 trials, then exactly)
demo: install
	@echo "==> 10 boltguns into 10 two-wound models (examples/boltguns.toml): 1,000,000 Monte Carlo trials at seed 1"
	$(BIN)/mathhammer simulate examples/boltguns.toml --monte-carlo --seed 1
	@echo "==> The same scenario evaluated exactly, to compare"
	$(BIN)/mathhammer simulate examples/boltguns.toml --exact
	@echo "==> Next: $(BIN)/mathhammer --help, or edit a copy of examples/boltguns.toml and simulate it"

.PHONY: serve  ## install, then start the local web page at http://localhost:8000/ (mathhammer serve)
serve: install
	$(BIN)/mathhammer serve

.PHONY: screenshot  ## install, then save the web page's screenshot for the README to docs/screenshot.png (needs chromium)
screenshot: install
	$(BIN)/python scripts/screenshot.py docs/screenshot.png

.PHONY: test  ## install, then run every Rust and Python test
test: install
	cargo test --locked -p mathhammer-core -p mathhammer-py
	$(BIN)/python -m pytest

.PHONY: test-install  ## install, then build the distributions, serve them as a local index and pip install each by name
test-install: install
	$(BIN)/python -m pytest -m install tests/test_install.py

.PHONY: test-slow  ## install, then run the long checks: exact vs Monte Carlo on random plans, fuzzed scenario files
test-slow: install
	$(BIN)/python -m pytest -m slow

.PHONY: bench  ## install, run the benchmarks, then the ratio tables (beside the references with REFERENCE=DIR), the sweep table and the exact-vs-icepool table
bench: install
	$(BIN)/python -m pytest benches --benchmark-enable --benchmark-columns=min,median,mean,rounds -p no:randomly
	cargo bench --locked -p mathhammer-core
	$(BIN)/python benches/ratios.py $(if $(REFERENCE),--reference $(REFERENCE)) --output target/ratios.md
	$(BIN)/python benches/cliff.py $(if $(REFERENCE),--reference $(REFERENCE)) --output target/cliff.md
	$(BIN)/python benches/sweep.py --output target/sweep.md
	$(BIN)/python benches/exact_sweep.py --output target/exact-sweep.md

.PHONY: lint  ## type-check (mypy, stubtest), lint Python (ruff) and Rust (clippy)
lint: install lint-python lint-rust

.PHONY: lint-python  ## ruff and mypy over the package, plugins and tests; stubtest on the extension
lint-python:
	$(BIN)/ruff check python plugins tests benches scripts
	$(BIN)/mypy
	$(BIN)/python -m mypy.stubtest mathhammer._core --allowlist .stubtest-allowlist

.PHONY: lint-rust  ## clippy (pedantic) and rustfmt check
lint-rust:
	cargo clippy --locked --workspace --all-targets -- -D warnings
	cargo fmt --all --check

.PHONY: format  ## format Rust and Python sources
format:
	cargo fmt --all
	$(BIN)/ruff format python plugins tests benches scripts

.PHONY: all  ## format, build, lint and test
all: install format lint test

.PHONY: clean  ## remove build output and the virtual environment
clean:
	rm -rf target dist $(VENV) .pytest_cache .mypy_cache .hypothesis
