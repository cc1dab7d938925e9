# vyre: `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup vulkan demo test lit unit typecheck clean fuzz

setup: $(STAMP) vulkan

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	@touch $(STAMP)

# Install Mesa's lavapipe (a Vulkan device on the CPU) when wgpu finds no Vulkan adapter.
vulkan: $(STAMP)
	@if $(PY) -m vyre.runtime.adapters --check >/dev/null 2>&1; then \
	  $(PY) -m vyre.runtime.adapters --check; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  echo "no Vulkan adapter: installing Debian's mesa-vulkan-drivers (lavapipe)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mesa-vulkan-drivers libvulkan1 >/dev/null; \
	  $(PY) -m vyre.runtime.adapters --check; \
	else \
	  echo "warning: no Vulkan adapter and apt-get is not usable; install mesa-vulkan-drivers by hand"; \
	fi

demo: setup
	$(PY) examples/xor_kernel.py

test: setup
	$(PY) -m pytest -q test/unit

lit: setup
	$(VENV)/bin/lit -v test/lit

unit: setup
	$(PY) -m pytest -q test/unit --ignore=test/unit/test_lit.py

# Fuzz for FUZZ_SECONDS (text, wire, API and interp-vs-wgpu differential fuzzers, then
# the Hypothesis round-trip properties unseeded); failures are shrunk and saved to
# test/fuzz_corpus, which `make test` replays (docs/reliability.md).
FUZZ_SECONDS ?= 300
fuzz: setup
	$(PY) -m vyre.testing.fuzz --seconds $(FUZZ_SECONDS)
	VYRE_HYPOTHESIS_PROFILE=fuzz $(PY) -m pytest -q test/unit/test_properties.py

# pyright in strict mode over vyre/ (needs Node.js; not part of `make test`).
typecheck: $(STAMP)
	$(PY) -m pip install -q pyright
	$(VENV)/bin/pyright vyre

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
