"""msmigrate: port PyTorch code to MindSpore and prove the port computes the same thing.

``convert_source(code)`` and ``convert_path(src, out)`` are the converter's Python API; ``migrate.weights`` and
``migrate.parity`` hold the weight converter and the parity checker.
"""
from .api import convert_path, convert_source

__all__ = ["convert_path", "convert_source"]
__version__ = "0.1.0"
