# Two entry points (see README): `make demo` and `make test`. Both create and reuse .venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: venv demo test lint clean

$(STAMP): setup.cfg pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(PY) -m hygiene_pddl demo

test: $(STAMP)
	$(PY) -m pytest -q -n 2 tests

lint: $(STAMP)
	$(VENV)/bin/ruff check hygiene_pddl compiler scripts tests

clean:
	rm -rf $(VENV) build *.egg-info
