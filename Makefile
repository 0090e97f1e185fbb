# Two commands for a fresh machine: `make demo` and `make test` (see README.md).
PY      ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
STAMP   := $(VENV)/.installed-stamp

.PHONY: setup demo test test-fast docs site bench bench-real usage clean

setup: $(STAMP)

# torch==2.13.0 is pinned: on this kind of machine pip takes its CPU build from local disk (any other version would
# download a multi-GB CUDA build). numpy<2 and ml-dtypes<0.6 keep MindSpore 2.10 and onnx working together.
$(STAMP): pyproject.toml
	test -x $(VPY) || $(PY) -m venv $(VENV)
	$(VPY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(VPY) -m pip install -q --disable-pip-version-check -e '.[dev]'
	$(VPY) -m pip check
	touch $(STAMP)

demo: setup
	$(VPY) examples/crack_unet/demo.py

# two workers (the machine this is sized for has 2 cores); each test file stays on one worker (its fixtures once).
# --max-worker-restart 0: a worker that dies (a MindSpore segfault) fails the run at once, naming the test; with
# --dist loadfile a replaced worker can wait forever (pytest-xdist issues 784/1323: CI stalled 90 minutes)
PYTEST  := $(VPY) -m pytest -q -n 2 --dist loadfile --max-worker-restart 0

test: setup
	$(PYTEST)

test-fast: setup
	$(PYTEST) -m "not slow"

docs: setup
	$(VENV)/bin/msmigrate mappings --format md > docs/supported_apis.md

# the docs site (mkdocs.yml + docs/) into site/; make test builds it too (tests/test_docs_site.py, --strict)
site: setup
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

bench: setup
	$(VPY) benchmarks/convert_speed.py
	$(VPY) benchmarks/parity_overhead.py
	$(VPY) benchmarks/jit_speedup.py

# torch API use ranking over real packages (downloads them into the git-ignored benchmarks/corpus/, ~15 minutes)
usage: setup
	$(VPY) benchmarks/api_usage.py

# the real-model corpus (downloads three wheels into benchmarks/corpus/; tens of minutes): docs/real_models.md
bench-real: setup
	$(VPY) benchmarks/real_models.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache demo_out rank_0 site
