# Two commands for a fresh machine: `make demo` and `make test`.
PY      ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
STAMP   := $(VENV)/.installed

.PHONY: setup demo test test-fast bench clean docs

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -e '.[dev]'
	$(VPY) -m pip check
	touch $(STAMP)

demo: setup
	$(VPY) examples/demo.py

test: setup
	$(VPY) -m pytest -q -n 0 2>/dev/null || $(VPY) -m pytest -q

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache demo_out
