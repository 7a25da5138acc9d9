# Every target creates or reuses .venv and installs what it needs by itself.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint fixtures vectors clean chromium

# Python packages only: blind dealing's libsodium comes inside the rbcl wheel.
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Reports are tested (and the demo's screenshot taken) in Debian's headless Chromium,
# driven by Playwright; no browser is ever downloaded.
chromium:
	@command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)

demo: $(STAMP) chromium
	$(PY) -m tarneeb.cli.demo

test: $(STAMP) chromium
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) bench/bench.py

lint: $(STAMP)
	$(VENV)/bin/ruff check .

fixtures: $(STAMP)
	$(PY) -m tarneeb.testing.corpus fixtures

vectors: $(STAMP)
	$(PY) -m tarneeb.audit.vectors fixtures/vectors
	$(PY) -m tarneeb.replay.vectors fixtures/vectors

clean:
	rm -rf $(VENV) build *.egg-info
