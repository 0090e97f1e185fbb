"""Kinks decided by functional calls and tensor methods (migrate/parity/kinks.py): a faithful port whose ReLU /
clamp / max / abs between layers is a function call, not a module, passes whichever side of the kink float noise
puts an element on.

The nets put one pre-activation at the kink: c1's bias is moved (per seed, searched) so that torch's and
MindSpore's float32 values of one element of c1's output land on different sides of the kink (both within
rounding of it; the port is faithful). torch then routes no gradient there and MindSpore a whole one: c0's and
c1's weight gradients differ by an O(1) term (measured 300-400x their float64 noise floor before this routing).
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")

import mindspore.nn as mnn  # noqa: E402
import mindspore.ops as ops  # noqa: E402
import torch.nn as tnn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from migrate.parity import compare, kinks  # noqa: E402
from migrate.weights import torch_to_mindspore  # noqa: E402

# name -> (torch activation, MindSpore activation, the kink the element is put at)
ACTS = {
    "F.relu / x.relu()": (lambda x: F.relu(x), lambda x: ops.relu(x), 0.0),
    "torch.relu": (lambda x: torch.relu(x), lambda x: ops.relu(x), 0.0),
    "x.clamp(min=0)": (lambda x: x.clamp(min=0), lambda x: x.clamp(min=0), 0.0),
    "torch.maximum(x, zeros)": (lambda x: torch.maximum(x, torch.zeros_like(x)),
                                lambda x: ops.maximum(x, ops.zeros_like(x)), 0.0),
    "F.leaky_relu": (lambda x: F.leaky_relu(x, 0.1), lambda x: ops.leaky_relu(x, 0.1), 0.0),
    "F.hardtanh (lower bound)": (lambda x: F.hardtanh(x, -1.0, 1.0), lambda x: ops.hardtanh(x, -1.0, 1.0), -1.0),
    "abs": (lambda x: x.abs(), lambda x: ops.abs(x), 0.0),
}


class TNet(tnn.Module):
    def __init__(self, act, c=16):
        super().__init__()
        self.act = act  # a plain function: not a module (nothing for the module router to hook)
        self.c0 = tnn.Conv2d(3, c, 3, padding=1)
        self.c1 = tnn.Conv2d(c, c, 3, padding=1)
        self.c2 = tnn.Conv2d(c, c, 3, padding=1)
        self.head = tnn.Conv2d(c, 1, 1)

    def forward(self, x):
        x = self.act(self.c1(self.c0(x)))
        return self.head(self.c2(x).relu())


class MNet(mnn.Cell):
    def __init__(self, act, c=16):
        super().__init__()
        self.act = act
        k = dict(pad_mode="pad", padding=1, has_bias=True)
        self.c0 = mnn.Conv2d(3, c, 3, **k)
        self.c1 = mnn.Conv2d(c, c, 3, **k)
        self.c2 = mnn.Conv2d(c, c, 3, **k)
        self.head = mnn.Conv2d(c, 1, 1, has_bias=True)

    def construct(self, x):
        x = self.act(self.c1(self.c0(x)))
        return self.head(ops.relu(self.c2(x)))


def _pinned(name, seed):
    """(torch net, its port, input) with one element of c1's output on the other side of the kink in MindSpore,
    or None when none of the 50 candidates could be put there."""
    t_act, m_act, at = ACTS[name]
    torch.manual_seed(seed)
    t, m = TNet(t_act), MNet(m_act)
    x = np.random.default_rng(seed).standard_normal((2, 3, 16, 16)).astype(np.float32)

    def pre():
        torch_to_mindspore(t.state_dict(), m)
        with torch.no_grad():
            a = t.c1(t.c0(torch.from_numpy(x))).numpy().reshape(-1)
        return a, m.c1(m.c0(ms.Tensor(x))).asnumpy().reshape(-1)

    a, b = pre()
    plane = a.size // (2 * 16)
    for e in np.argsort(-np.abs(a - b))[:50]:
        ch = (e // plane) % 16
        shift = (float(a[e]) + float(b[e])) / 2 - at  # between the two: strictly on two sides, no exact tie
        with torch.no_grad():
            t.c1.bias[ch] -= shift
        a2, b2 = pre()
        if (a2[e] - at) * (b2[e] - at) < 0:
            return t, MNet(m_act), x
        with torch.no_grad():
            t.c1.bias[ch] += shift
    return None


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_functional_relu_between_convs_passes_at_every_seed(seed):
    found = _pinned("F.relu / x.relu()", seed)
    if found is None:
        pytest.skip("no element could be put on two sides of the kink at this seed on this machine")
    t, m, x = found
    r = compare(t, m, x)
    assert r.passed, r.table(color=False)
    assert any("kinks of functional calls" in n for n in r.determinism), r.determinism


def _worst(r, names=("c0.weight", "c0.bias", "c1.weight", "c1.bias")):
    return max(g["ratio"] for g in r.grads if g["name"] in names)


@pytest.mark.parametrize("name", list(ACTS))
def test_each_functional_kink_is_routed_and_unrouted_it_moves_the_gradients(name, monkeypatch):
    """Routed: within the screen. Control, the corrections off: c0's / c1's gradients carry the O(1) term of the
    flipped element (for F.relu far outside the floor; for a kink whose flipped gradient is small, still >100x
    the routed ratio)."""
    found = _pinned(name, 0)
    if found is None:
        pytest.skip("no element could be put on two sides of the kink on this machine")
    t, m, x = found
    state = {k: v.clone() for k, v in t.state_dict().items()}
    r = compare(t, m, x)
    assert r.passed, r.table(color=False)
    assert any("kinks of functional calls" in n and "1 element(s)" in n for n in r.determinism), r.determinism
    routed = _worst(r)
    monkeypatch.setattr(kinks._TorchOp, "correction", lambda self, slot, grad: None)
    t.load_state_dict(state)
    r = compare(t, MNet(ACTS[name][1]), x)
    assert _worst(r) > 100 * routed, r.table(color=False)
    if name.startswith("F.relu"):
        assert not r.passed and r.first_divergence["backward_param"] in ("c0.weight", "c0.bias", "c1.weight",
                                                                         "c1.bias"), r.table(color=False)


def test_a_real_slip_in_a_functional_kink_still_fails():
    """clamp(min=0) ported as clamp(min=0.05): many elements differ, far from the kink: not routed, named."""
    t = TNet(lambda x: x.clamp(min=0))
    torch.manual_seed(0)
    x = np.random.default_rng(0).standard_normal((2, 3, 16, 16)).astype(np.float32)
    r = compare(t, MNet(lambda x: x.clamp(min=0.05)), x)
    assert not r.passed and r.first_divergence["forward"] is not None, r.table(color=False)
    assert not any("kinks of functional calls" in n for n in r.determinism), r.determinism


def test_the_mindspore_wrappers_are_removed_after_a_run():
    before = {a: a in ms.Tensor.__dict__ for a in ("clamp", "clip", "abs", "maximum", "minimum", "__abs__")}
    from mindspore.ops.auto_generate import gen_ops_prim as P

    relu_call = P.ReLU.__call__
    t_act, m_act, _ = ACTS["x.clamp(min=0)"]
    torch.manual_seed(0)
    compare(TNet(t_act), MNet(m_act), np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32))
    assert {a: a in ms.Tensor.__dict__ for a in before} == before
    assert P.ReLU.__call__ is relu_call
