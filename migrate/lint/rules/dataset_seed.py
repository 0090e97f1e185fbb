"""MS005: ``mindspore.set_seed`` with a shuffling dataset but no dataset seed (article 6.1).

``ms.set_seed`` seeds operators; the order in which ``mindspore.dataset`` shuffles is seeded
by ``mindspore.dataset.config.set_seed``. Without it, runs are not reproducible and nothing
raises. Shuffling means ``shuffle=True`` passed to a ``mindspore.dataset`` constructor or a
``.shuffle(...)`` call on a dataset (``random.shuffle`` / ``np.random.shuffle`` are not).
"""
from __future__ import annotations

import libcst as cst

from ..core import Context, Rule, walk

SET_SEED = {"mindspore.set_seed", "mindspore.common.set_seed", "mindspore.common.seed.set_seed"}
DATASET_SEED = {"mindspore.dataset.config.set_seed", "mindspore.dataset.core.config.set_seed"}


class DatasetSeed(Rule):
    ID = "MS005"
    NAME = "dataset-seed"
    MESSAGE = "ms.set_seed does not seed dataset shuffling; runs will not be reproducible"
    FIX = "also call mindspore.dataset.config.set_seed(seed)"
    VALID = [
        """
import mindspore as ms
import mindspore.dataset as ds

ms.set_seed(1)
ds.config.set_seed(1)
data = ds.GeneratorDataset(source, ["x"], shuffle=True)
""",
        """
import random
import mindspore as ms

ms.set_seed(1)
random.shuffle(items)  # Python's shuffle, not a dataset
""",
    ]
    INVALID = [
        """
import mindspore as ms
import mindspore.dataset as ds

ms.set_seed(1)  # <- flagged
data = ds.GeneratorDataset(source, ["x"], shuffle=True)
""",
        """
import mindspore
from mindspore.dataset import GeneratorDataset

mindspore.set_seed(42)  # <- flagged
data = GeneratorDataset(source, ["x"]).shuffle(64).batch(8)
""",
    ]

    def check(self, ctx: Context):
        seeds, shuffles, dataset_seeded = [], False, False
        for node in walk(ctx.module):
            if not isinstance(node, cst.Call):
                continue
            name = ctx.qualname(node.func) or ""
            if name in SET_SEED:
                seeds.append(node)
            elif name in DATASET_SEED:
                dataset_seeded = True
            elif name.startswith("mindspore.dataset.") and any(
                    a.keyword and a.keyword.value == "shuffle" and _true(a.value)
                    for a in node.args):
                shuffles = True
            elif isinstance(node.func, cst.Attribute) and node.func.attr.value == "shuffle" \
                    and not _python_shuffle(name):
                shuffles = True
        if shuffles and not dataset_seeded:
            for node in seeds:
                yield ctx.finding(type(self), node)


def _true(expr: cst.BaseExpression) -> bool:
    return not (isinstance(expr, cst.Name) and expr.value in ("False", "None"))


def _python_shuffle(name: str) -> bool:
    return name.startswith(("random.", "numpy.", "np.", "sklearn.", "torch."))
