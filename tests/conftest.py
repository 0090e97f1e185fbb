import os
import sys

# Before anything imports MindSpore: its fast CPU kernels and quiet logs (see migrate/runtime.py).
from migrate.runtime import prepare_mindspore_env

prepare_mindspore_env()

# The project root on sys.path, so tests import `tests.harness` and the examples.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
