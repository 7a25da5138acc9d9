# Every target creates or reuses .venv and installs what it needs by itself.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint typecheck fixtures vectors clean chromium node js

# Python packages only: blind dealing's libsodium comes inside the rbcl wheel. The install
# builds the optional compiled parts (setup.py: the rules core, replay/rules/_core.c, and
# the ristretto255 group layer, audit/blind/_group.c) in place when a C compiler is there, and
# goes on without them.
$(STAMP): pyproject.toml setup.py replay/rules/_core.c audit/blind/_group.c audit/blind/_group_field.h
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Reports are tested (and the demo's screenshot taken) in Debian's headless Chromium,
# driven by Playwright; no browser is ever downloaded.
chromium:
	@command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)

# The TypeScript verifier (js/) runs on Debian's Node.js; its packages come from the npm
# registry, pinned by js/package-lock.json.
NODE_STAMP := js/node_modules/.installed

node:
	@command -v node >/dev/null && command -v npm >/dev/null || \
	  (apt-get update && apt-get install -y nodejs npm)

$(NODE_STAMP): js/package.json js/package-lock.json | node
	cd js && npm ci --no-audit --no-fund
	touch $(NODE_STAMP)

js: node $(NODE_STAMP)
	cd js && npm run build

demo: $(STAMP) chromium js
	$(PY) -m tarneeb.cli.demo

# the types (mypy --strict) and the TypeScript verifier's own tests (Node's test runner, on
# the build `js` has just made) side by side, each on a core of its own; then the Python
# suite, which holds the two verifiers to the same verdicts (tests/test_js_conformance.py);
# an idle worker takes tests from a busy one (--dist worksteal), so the few long ones do
# not end the run on one core. Compiled modules are kept (__pycache__, which git ignores)
# even where the environment says not to write them (PYTHONDONTWRITEBYTECODE): else each
# worker and every `python -m tarneeb` a test starts compiles the package again
test: $(STAMP) chromium js
	$(MAKE) --no-print-directory typecheck & typecheck=$$!; \
	  (cd js && npm run --silent test:built); js=$$?; \
	  wait $$typecheck && exit $$js
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q -n auto --dist worksteal

# the figures are printed and written into docs/PERFORMANCE.md
bench: $(STAMP) js
	$(PY) bench/bench.py --write-docs

lint: $(STAMP)
	$(VENV)/bin/ruff check .

# mypy --strict over the package as users import it: tarneeb.* is laid out by package_dir
# (tarneeb.audit is audit/, ...), which mypy cannot map, so it reads a tree of links that
# names every part as the installed package does
TYPECHECK := build/typecheck
typecheck: $(STAMP)
	rm -rf $(TYPECHECK) && mkdir -p $(TYPECHECK)/tarneeb
	for f in tarneeb/*; do ln -s ../../../$$f $(TYPECHECK)/tarneeb/; done
	for d in audit replay cli testing report; do ln -s ../../../$$d $(TYPECHECK)/tarneeb/$$d; done
	ln -s ../../../fixtures/matches $(TYPECHECK)/tarneeb/corpus
	MYPYPATH=$(TYPECHECK) $(VENV)/bin/mypy -p tarneeb

fixtures: $(STAMP)
	$(PY) -m tarneeb.testing.corpus fixtures

vectors: $(STAMP)
	$(PY) -m tarneeb.audit.vectors fixtures/vectors
	$(PY) -m tarneeb.replay.vectors fixtures/vectors

clean:
	rm -rf $(VENV) build *.egg-info js/node_modules js/dist
