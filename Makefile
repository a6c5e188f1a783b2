# polyrelu: two commands on a fresh Debian machine (as root, or with sudo):
#   make demo   - install what is missing (polyrelu and what it needs to run, plus the examples extra: torch and
#                 scikit-learn for the digits showcase), then report on the built-in examples (writes
#                 demo-analysis.png), rebuild one from function values alone (writes demo-recovered.json), and
#                 train a small MLP on handwritten digits and slice it exactly (examples/digits.py, into demo-digits/)
#   make test   - the same, plus the test tools (the test extra: pytest, pytest-xdist, hypothesis, Sage's
#                 polyhedra, mkdocs, mypy, import-linter), torch and scikit-learn, then run the test suite
#                 (doctests included) on every core, one test file per worker at a time
#   make typecheck - mypy on the public modules (configured in pyproject.toml)
#   make lint   - ruff: unused imports, undefined names, import order (configured in pyproject.toml)
#   make docs   - build the documentation site into site/ (mkdocs, API reference from the docstrings)
#   make docs-images - redraw every image in docs/img with the current plot functions (seeded: the same images)
#   make install-check - build the wheel, install it with plain pip into a fresh virtual environment and run the
#                 README's example there (tests/test_packaging.py, marked slow; needs the package index)
# Re-running is fast: the venv is rebuilt only when pyproject.toml changes.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUNTIME := $(VENV)/.installed-runtime
TESTENV := $(VENV)/.installed-test
DEMOENV := $(VENV)/.installed-demo
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# The torch extra asks for torch>=2.10; the test environment pins the release it is tested with, whose CPU
# build this machine kind carries (a newer torch from PyPI is the CUDA build: gigabytes the tests never use).
TORCH_TESTED := torch==2.13.0

.PHONY: demo test typecheck lint docs docs-images bench install-check system-deps clean

demo: $(DEMOENV)
	$(BIN)/polyrelu demo
	$(BIN)/polyrelu analyze builtin:generic-2-3-3-2-1 --plot demo-analysis.png
	$(BIN)/polyrelu recover builtin:generic-2-3-3-2-1 -o demo-recovered.json
	$(BIN)/python examples/digits.py --quick --out demo-digits

test: $(TESTENV)
	$(BIN)/python -m pytest -n auto --dist loadfile

# the files and the strictness per module are in pyproject.toml's [tool.mypy]
typecheck: $(TESTENV)
	$(BIN)/python -m mypy

lint: $(TESTENV)
	$(BIN)/python -m ruff check polyrelu tests benchmarks examples

install-check: $(TESTENV)
	$(BIN)/python -m pytest -m slow tests/test_packaging.py

# the documentation site (docs/ and the API reference from the docstrings) into site/
docs: $(VENV)/.docs-installed
	$(BIN)/mkdocs build --strict --site-dir site

# the images of docs/img (benchmarks/make_doc_images.py; the digits figures need torch and scikit-learn)
docs-images: $(TESTENV)
	$(BIN)/python benchmarks/make_doc_images.py

$(VENV)/.docs-installed: $(RUNTIME)
	$(BIN)/python -m pip install -q --no-binary pycddlib -e '.[docs]'
	touch $@

bench: $(RUNTIME)
	$(BIN)/python benchmarks/bench_lp.py

# pycddlib is compiled from source against Debian's cddlib and GMP (so that `import cdd.gmp` works), which needs
# a C compiler and Python's headers; the venv needs Python's venv module. Only what is missing is installed.
system-deps:
	@missing=""; \
	dpkg -s libcdd-dev libgmp-dev >/dev/null 2>&1 || missing="$$missing libcdd-dev libgmp-dev"; \
	command -v cc >/dev/null 2>&1 || missing="$$missing build-essential"; \
	$(PYTHON) -c "import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))" 2>/dev/null || missing="$$missing python3-dev"; \
	$(PYTHON) -c "import ensurepip, venv" 2>/dev/null || missing="$$missing python3-venv"; \
	[ -z "$$missing" ] || { \
		echo "installing$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing >/dev/null; }

# runtime: polyrelu and its dependencies only (what `pip install polyrelu` brings)
$(RUNTIME): pyproject.toml
	$(MAKE) --no-print-directory system-deps
	[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q --no-binary pycddlib -e .
	$(BIN)/python -c "import cdd.gmp" || { echo "pycddlib lacks GMP: see docs/install.md"; exit 1; }
	touch $@

$(TESTENV): $(RUNTIME)
	$(BIN)/python -m pip install -q --no-binary pycddlib -e '.[test,torch,examples]' '$(TORCH_TESTED)'
	touch $@

# the demo's showcase (examples/digits.py) trains with torch on scikit-learn's bundled digits
$(DEMOENV): $(RUNTIME)
	$(BIN)/python -m pip install -q --no-binary pycddlib -e '.[examples]' '$(TORCH_TESTED)'
	touch $@

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .hypothesis *.egg-info build dist demo-analysis.png demo-recovered.json demo-digits site
