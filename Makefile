# polyrelu: two commands on a fresh Debian machine (as root, or with sudo):
#   make demo   - install what is missing, then report on the built-in examples (writes demo-analysis.png),
#                 and rebuild one from function values alone (writes demo-recovered.json)
#   make test   - install what is missing, then run the test suite (doctests included)
#   make typecheck - mypy on the public modules (configured in pyproject.toml)
#   make docs   - build the documentation site into site/ (mkdocs, API reference from the docstrings)
# Re-running is fast: the venv is rebuilt only when pyproject.toml changes.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test typecheck docs bench system-deps clean

demo: $(STAMP)
	$(BIN)/polyrelu demo
	$(BIN)/polyrelu analyze builtin:generic-2-3-3-2-1 --plot demo-analysis.png
	$(BIN)/polyrelu recover --from builtin:generic-2-3-3-2-1 -o demo-recovered.json

test: $(STAMP)
	$(BIN)/python -m pytest

# the files and the strictness per module are in pyproject.toml's [tool.mypy]
typecheck: $(STAMP)
	$(BIN)/python -m mypy

# the documentation site (docs/ and the API reference from the docstrings) into site/
docs: $(VENV)/.docs-installed
	$(BIN)/mkdocs build --strict --site-dir site

$(VENV)/.docs-installed: $(STAMP)
	$(BIN)/python -m pip install -q --no-binary pycddlib -e '.[docs]'
	touch $@

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_lp.py

# pycddlib is compiled against Debian's cddlib and GMP so that `import cdd.gmp` works.
system-deps:
	@dpkg -s libcdd-dev libgmp-dev >/dev/null 2>&1 || { \
		echo "installing libcdd-dev libgmp-dev"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq libcdd-dev libgmp-dev >/dev/null; }

$(STAMP): pyproject.toml
	$(MAKE) --no-print-directory system-deps
	[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q --no-binary pycddlib -e '.[test,torch]'
	$(BIN)/python -c "import cdd.gmp" || { echo "pycddlib lacks GMP: see README"; exit 1; }
	touch $(STAMP)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .hypothesis *.egg-info demo-analysis.png site
