# vyre: `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup vulkan demo test test-all lit unit typecheck docs clean fuzz

setup: $(STAMP) vulkan

# The package asks for compatible ranges (pyproject.toml); the project's own
# environment takes the exact versions of constraints.txt. The editable install
# is a static path (pyproject.toml maps the package from the project root),
# which type checkers such as pyright follow.
$(STAMP): pyproject.toml constraints.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[gpu,dev]' -c constraints.txt
	@touch $(STAMP)

# Install Mesa's lavapipe (a Vulkan device on the CPU) when wgpu finds no Vulkan adapter.
# (The probe is called as a function: `python -m vyre.runtime.adapters` imports the
# module twice, which runpy warns about. It runs once, its report kept: each run
# takes 1.5 s of every `make test`.)
ADAPTER := $(PY) -c "import sys, vyre.runtime.adapters as probe; sys.exit(probe.main(['--check']))"
vulkan: $(STAMP)
	@if found="$$($(ADAPTER) 2>&1)"; then \
	  echo "$$found"; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  echo "no Vulkan adapter: installing Debian's mesa-vulkan-drivers (lavapipe; waits up to 5 min for a held apt lock)"; \
	  apt-get -o DPkg::Lock::Timeout=300 update && \
	  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y mesa-vulkan-drivers libvulkan1; \
	  $(ADAPTER); \
	else \
	  echo "warning: no Vulkan adapter and apt-get is not usable; install mesa-vulkan-drivers by hand"; \
	fi

demo: setup
	$(PY) examples/xor_kernel.py

# The tests run in parallel (pytest-xdist), one worker per CPU: PYTEST_WORKERS=2
# sets the count, PYTEST_WORKERS=0 runs them in this process. `make test` leaves
# out the slow proof campaigns (tests marked `slow`); `make test-all` (and CI)
# runs every test. pyright is part of the tests too (test_packaging checks a
# consumer project's view of vyre). The tests write Python's bytecode caches
# (__pycache__, git-ignored) even where PYTHONDONTWRITEBYTECODE is set, as
# container images often do: else each worker rewrote every test module's
# asserts again (collection 11 s instead of 4.5) and each of the few hundred
# Python processes the tests start compiled vyre's modules again.
PYTEST_WORKERS ?= auto
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadgroup

test: setup $(VENV)/bin/pyright
	$(PYTEST) -m "not slow" test/unit

test-all: setup $(VENV)/bin/pyright
	$(PYTEST) test/unit

lit: setup
	$(VENV)/bin/lit -v test/lit

unit: setup
	$(PYTEST) -m "not slow" test/unit --ignore=test/unit/test_lit.py

# Fuzz for FUZZ_SECONDS (every target of vyre/testing/fuzz/base.py: text, wire, API,
# interp-vs-wgpu differential, kernel ops, float functions, tensor graphs, tensor IR
# text, u128 expressions; then the Hypothesis round-trip properties unseeded); failures are shrunk and
# saved to test/fuzz_corpus, which `make test` replays (docs/reliability.md).
FUZZ_SECONDS ?= 300
fuzz: setup
	$(PY) -m vyre.testing.fuzz --seconds $(FUZZ_SECONDS)
	VYRE_HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest -q test/unit/test_properties.py

$(VENV)/bin/pyright: $(STAMP)
	$(PY) -m pip install -q pyright -c constraints.txt

# pyright in strict mode over vyre/ (needs Node.js; .ci/run runs it before the tests).
typecheck: $(VENV)/bin/pyright
	$(VENV)/bin/pyright vyre test/support

# The API reference, generated from the docstrings with pdoc into docs/api/ (git-ignored).
docs: $(STAMP)
	$(VENV)/bin/pdoc --docformat markdown --output-directory docs/api \
	  $$($(PY) -c "import pkgutil, vyre; print(' '.join(['vyre'] + sorted(m.name for m in pkgutil.walk_packages(vyre.__path__, 'vyre.'))))")
	@echo "API reference: docs/api/index.html (written docs: docs/README.md)"

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
