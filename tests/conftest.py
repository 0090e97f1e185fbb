import os
import sys

# The project root on sys.path, so tests import `tests.harness` and the examples.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
