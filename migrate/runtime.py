"""Process settings for the commands that run MindSpore (parity, weights, the demo, tests, benchmarks).

MindSpore 2.10's bundled oneDNN picks its AVX-512/AMX convolution kernels on CPUs that have them, and those ran
about 20x slower than its AVX2 kernels on the machines msmigrate is developed on (a 16->16 channel 3x3 conv on
8x64x64: 267 ms vs 13 ms; a crack U-Net training step: 7 s vs 0.6 s). ``ONEDNN_MAX_CPU_ISA=AVX2`` selects the fast
ones. oneDNN reads it once, when MindSpore first runs a kernel, so it must be set before that. A value the user set
is kept.
"""
from __future__ import annotations

import os

MINDSPORE_ENV = {
    "ONEDNN_MAX_CPU_ISA": "AVX2",  # see the module docstring
    "GLOG_v": "3",  # MindSpore logs errors only (its deprecation warnings drown the output otherwise)
}


def prepare_mindspore_env(environ=os.environ) -> dict:
    """Set the defaults above where unset; returns ``environ`` (also usable on a copy for subprocesses)."""
    for key, value in MINDSPORE_ENV.items():
        environ.setdefault(key, value)
    return environ
