"""torch <-> MindSpore weight conversion: names, layouts, errors, files."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")
from mindspore import nn as mnn  # noqa: E402
from torch import nn as tnn  # noqa: E402

from migrate.weights import (WeightsError, infer_from_ms, infer_from_torch, load_rules, load_torch_state_dict,  # noqa: E402
                             mindspore_to_torch, torch_to_mindspore)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class TorchNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv1d = tnn.Conv1d(3, 4, 3)
        self.bn = tnn.BatchNorm2d(4)
        self.ln = tnn.LayerNorm(6)
        self.gn = tnn.GroupNorm(2, 4)
        self.emb = tnn.Embedding(10, 6)
        self.prelu = tnn.PReLU(4)
        self.lstm = tnn.LSTM(6, 5, num_layers=2, bidirectional=True)
        self.fc = tnn.Linear(6, 2)
        self.down = tnn.Sequential(tnn.Conv2d(4, 4, 3, padding=1), tnn.BatchNorm2d(4), tnn.ReLU())


class MsNet(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1d = mnn.Conv1d(3, 4, 3, pad_mode="valid", has_bias=True)
        self.bn = mnn.BatchNorm2d(4)
        self.ln = mnn.LayerNorm((6,))
        self.gn = mnn.GroupNorm(2, 4)
        self.emb = mnn.Embedding(10, 6)
        self.prelu = mnn.PReLU(4)
        self.lstm = mnn.LSTM(6, 5, num_layers=2, bidirectional=True)
        self.fc = mnn.Dense(6, 2)
        self.down = mnn.SequentialCell([mnn.Conv2d(4, 4, 3, pad_mode="pad", padding=1, has_bias=True),
                                        mnn.BatchNorm2d(4), mnn.ReLU()])


def _randomised(model):
    with torch.no_grad():
        for t in model.state_dict().values():
            if t.is_floating_point():
                t.copy_(torch.randn_like(t))
    return model


def test_rules_file_is_valid_and_covers_the_documented_layers():
    rules = load_rules()
    assert rules.by_torch["BatchNorm2d"].params["running_var"] == "moving_variance"
    assert rules.by_torch["Embedding"].params == {"weight": "embedding_table"}
    assert rules.by_torch["Conv1d"].expand_dims == {"weight": 2}
    assert rules.by_torch["BatchNorm3d"].params["weight"] == "bn2d.gamma"


def test_whole_network_round_trip_exact_names_and_values():
    tm, net = _randomised(TorchNet()), MsNet()
    sd = tm.state_dict()
    mapping = torch_to_mindspore(sd, net)
    assert mapping["bn.weight"] == "bn.gamma"
    assert mapping["bn.running_var"] == "bn.moving_variance"
    assert mapping["down.1.running_mean"] == "down.1.moving_mean"
    assert mapping["ln.bias"] == "ln.beta" and mapping["gn.weight"] == "gn.gamma"
    assert mapping["emb.weight"] == "emb.embedding_table"
    assert mapping["prelu.weight"] == "prelu.w"
    assert mapping["lstm.weight_hh_l1_reverse"] == "lstm.weight_hh_l1_reverse"
    assert "bn.num_batches_tracked" not in mapping
    params = dict(net.parameters_and_names())
    np.testing.assert_array_equal(params["conv1d.weight"].asnumpy(), sd["conv1d.weight"].numpy()[:, :, None, :])
    np.testing.assert_array_equal(params["bn.moving_mean"].asnumpy(), sd["bn.running_mean"].numpy())
    back = mindspore_to_torch(net, TorchNet())
    assert list(back) == list(sd)
    for k in sd:
        assert torch.equal(back[k], sd[k]), k


def test_converted_weights_compute_the_same_conv1d_and_embedding():
    tc, mc = tnn.Conv1d(3, 4, 3), mnn.Conv1d(3, 4, 3, pad_mode="valid", has_bias=True)
    torch_to_mindspore(tc.state_dict(), mc)
    x = np.random.default_rng(0).standard_normal((2, 3, 9)).astype(np.float32)
    np.testing.assert_allclose(mc(ms.Tensor(x)).asnumpy(), tc(torch.from_numpy(x)).detach().numpy(), atol=1e-5)


def test_single_layer_without_prefix_and_parameterless_cell():
    tbn, mbn = _randomised(tnn.BatchNorm2d(3)), mnn.BatchNorm2d(3)
    assert torch_to_mindspore(tbn.state_dict(), mbn) == {
        "weight": "gamma", "bias": "beta", "running_mean": "moving_mean", "running_var": "moving_variance"}
    np.testing.assert_array_equal(mbn.moving_variance.asnumpy(), tbn.running_var.numpy())
    assert torch_to_mindspore(tnn.ReLU().state_dict(), mnn.ReLU()) == {}
    bn3 = mnn.BatchNorm3d(3)
    assert torch_to_mindspore(_randomised(tnn.BatchNorm3d(3)).state_dict(), bn3)["weight"] == "bn2d.gamma"


def test_shape_mismatch_names_tensor_and_both_shapes_and_loads_nothing():
    net = MsNet()
    before = net.fc.weight.asnumpy().copy()
    sd = TorchNet().state_dict()
    sd["bn.running_mean"] = torch.zeros(5)
    with pytest.raises(WeightsError, match=r"bn\.running_mean: torch shape \(5,\) does not fit MindSpore "
                                           r"bn\.moving_mean shape \(4,\)"):
        torch_to_mindspore(sd, net)
    np.testing.assert_array_equal(net.fc.weight.asnumpy(), before)


def test_missing_and_extra_tensors_are_named():
    sd = TorchNet().state_dict()
    del sd["fc.bias"]
    with pytest.raises(WeightsError, match=r"fc\.bias"):
        torch_to_mindspore(sd, MsNet())
    sd = TorchNet().state_dict()
    sd["extra.weight"] = torch.zeros(2)
    with pytest.raises(WeightsError, match=r"extra\.weight \(2,\)"):
        torch_to_mindspore(sd, MsNet())


def test_inference_without_network_says_what_it_inferred():
    sd = TorchNet().state_dict()
    nm = infer_from_torch({k: tuple(v.shape) for k, v in sd.items()})
    m = nm.torch_to_ms()
    assert m["bn.weight"] == "bn.gamma" and m["down.1.running_var"] == "down.1.moving_variance"
    assert m["ln.weight"] == "ln.gamma" and m["prelu.weight"] == "prelu.w"
    assert m["fc.weight"] == "fc.weight" and m["lstm.weight_ih_l0"] == "lstm.weight_ih_l0"
    assert "bn.num_batches_tracked" in nm.dropped
    summary = "\n".join(nm.inferred_summary())
    assert "inferred BatchNorm2d for bn, down.1" in summary and "PReLU" in summary
    back = infer_from_ms({"bn.gamma": (4,), "bn.beta": (4,), "bn.moving_mean": (4,), "bn.moving_variance": (4,),
                          "emb.embedding_table": (10, 6)}).ms_to_torch()
    assert back["bn.moving_variance"] == "bn.running_var" and back["emb.embedding_table"] == "emb.weight"


def test_malicious_pickle_is_refused(tmp_path):
    class Evil:
        def __reduce__(self):
            return (os.system, ("touch " + str(tmp_path / "pwned"),))

    path = tmp_path / "evil.pt"
    torch.save({"w": torch.ones(1), "x": Evil()}, path)
    with pytest.raises(WeightsError, match=r"evil\.pt: refused.*weights_only=True"):
        load_torch_state_dict(path)
    assert not (tmp_path / "pwned").exists()


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "migrate.cli", "weights", *args], cwd=cwd, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": ROOT})


@pytest.mark.slow
def test_cli_round_trip_and_errors(tmp_path):
    model_py = tmp_path / "nets.py"
    model_py.write_text(
        "import torch.nn as tnn\nimport mindspore.nn as mnn\n"
        "class T(tnn.Module):\n"
        "    def __init__(self, c=4):\n"
        "        super().__init__(); self.conv = tnn.Conv2d(3, c, 3); self.bn = tnn.BatchNorm2d(c)\n"
        "class M(mnn.Cell):\n"
        "    def __init__(self, c=4):\n"
        "        super().__init__(); self.conv = mnn.Conv2d(3, c, 3, has_bias=True); self.bn = mnn.BatchNorm2d(c)\n")
    sd = {"conv.weight": torch.randn(4, 3, 3, 3), "conv.bias": torch.randn(4), "bn.weight": torch.randn(4),
          "bn.bias": torch.randn(4), "bn.running_mean": torch.randn(4), "bn.running_var": torch.rand(4),
          "bn.num_batches_tracked": torch.tensor(3)}
    torch.save(sd, tmp_path / "m.pth")
    r = _cli("m.pth", "-o", "m.ckpt", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "inferred BatchNorm2d for bn" in r.stdout and "1 dropped" in r.stdout
    ck = ms.load_checkpoint(str(tmp_path / "m.ckpt"))
    np.testing.assert_array_equal(ck["bn.moving_variance"].asnumpy(), sd["bn.running_var"].numpy())
    r = _cli("m.ckpt", "-o", "back.pth", "--reverse", "--model", "nets.py:T", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    back = torch.load(tmp_path / "back.pth", weights_only=True)
    assert all(torch.equal(back[k], sd[k]) for k in sd if k != "bn.num_batches_tracked")
    r = _cli("m.pth", "-o", "m2.ckpt", "--ms-model", "nets.py:M", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    # a tensor that does not fit: one line naming it and both shapes, exit 2, nothing written
    (tmp_path / "m.ckpt").write_bytes(b"keep me")
    r = _cli("m.pth", "-o", "m.ckpt", "--ms-model", "nets.py:M", "--args", '{"c": 5}', cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "conv.weight" in r.stderr and "(4, 3, 3, 3)" in r.stderr \
        and "(5, 3, 3, 3)" in r.stderr, r.stderr
    assert (tmp_path / "m.ckpt").read_bytes() == b"keep me"
    assert not [p for p in os.listdir(tmp_path) if ".tmp" in p]
    r = _cli("missing.pth", "-o", "x.ckpt", cwd=tmp_path)
    assert r.returncode == 2 and "missing.pth: no such file" in r.stderr and "Traceback" not in r.stderr


def test_a_module_registered_under_two_paths_loads_once():
    """CoaT shares one positional encoder between its stage and its blocks: torch's state_dict lists the tensor under
    both paths, MindSpore's parameters once; the second path is an alias, not a tensor without a home."""
    class TNet(tnn.Module):
        def __init__(self):
            super().__init__()
            self.cpe = tnn.Linear(3, 3)
            self.block = tnn.Sequential(tnn.ReLU())
            self.block.cpe = self.cpe

    class MNet(mnn.Cell):
        def __init__(self):
            super().__init__()
            self.cpe = mnn.Dense(3, 3)
            self.block = mnn.SequentialCell(mnn.ReLU())
            self.block.cpe = self.cpe

    t, m = TNet(), MNet()
    sd = t.state_dict()
    assert "block.cpe.weight" in sd
    used = torch_to_mindspore(sd, m)
    assert set(used) == {"cpe.weight", "cpe.bias"}
    np.testing.assert_array_equal(m.cpe.weight.asnumpy(), t.cpe.weight.detach().numpy())
    with pytest.raises(WeightsError, match="block.cpe.weight"):  # a copy is not an alias: it needs a home
        torch_to_mindspore({k: v.clone() for k, v in sd.items()}, m)


@pytest.mark.parametrize("content,message", [
    (b"", "the file is empty"),
    (b"hello, not a checkpoint\n", "neither a zip archive (torch.save) nor a pickle"),
    (bytes(range(7, 200)), "neither a zip archive (torch.save) nor a pickle"),
    (b"\x80\x02}q\x00(X\x01", "not a torch checkpoint"),
])
def test_a_file_that_is_no_checkpoint_says_so(tmp_path, content, message):
    """A corrupt file is not "a pickle holding objects other than tensors": that message is for refused pickles."""
    (tmp_path / "bad.pth").write_bytes(content)
    with pytest.raises(WeightsError) as exc:
        load_torch_state_dict(tmp_path / "bad.pth")
    assert message in str(exc.value) and "other than tensors" not in str(exc.value)


def test_a_truncated_checkpoint_says_so(tmp_path):
    torch.save({"w": torch.zeros(64)}, tmp_path / "m.pth")
    data = (tmp_path / "m.pth").read_bytes()
    (tmp_path / "m.pth").write_bytes(data[: len(data) // 2])
    with pytest.raises(WeightsError, match="damaged zip archive"):
        load_torch_state_dict(tmp_path / "m.pth")


def test_written_checkpoints_have_the_users_mode(tmp_path):
    """MindSpore writes checkpoints read-only for their owner, mkstemp 0600: msmigrate gives the umask's mode."""
    import stat

    from migrate.weights import save_ms_checkpoint, save_torch_state_dict

    old = os.umask(0o022)
    try:
        save_ms_checkpoint({"w": np.zeros(2, np.float32)}, tmp_path / "m.ckpt")
        save_torch_state_dict({"w": torch.zeros(2)}, tmp_path / "m.pth")
    finally:
        os.umask(old)
    for name in ("m.ckpt", "m.pth"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o644, name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.ckpt", "m.pth"]
