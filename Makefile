# Two entry points (see README): `make demo` and `make test`. Both create and reuse .venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: venv demo test test-full fuzz lint clean

$(STAMP): setup.cfg pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(PY) -m hygiene_pddl demo

test: $(STAMP)
	$(PY) -m pytest -q -n 2 -m "not slow" tests

# Everything: the slow tests too, and the expensive per-instance tests over one instance of every family
# (make test samples every 20th family)
test-full: $(STAMP)
	HYGIENE_TEST_ALL_FAMILIES=1 $(PY) -m pytest -q -n 2 tests

# The fuzzing suite run long (make test runs a few cases per target): make fuzz FUZZ_SECONDS=600
FUZZ_SECONDS ?= 600
FUZZ_SEED ?= 0
fuzz: $(STAMP)
	$(PY) scripts/fuzz.py --seconds $(FUZZ_SECONDS) --seed $(FUZZ_SEED) --jobs 2 --out results/fuzz

lint: $(STAMP)
	$(VENV)/bin/ruff check hygiene_pddl compiler scripts tests

clean:
	rm -rf $(VENV) build *.egg-info
