"""Autograd / AMP / distributed APIs that are known and not converted: each is marked with its reason."""
import pytest

from tests.harness import assert_unsupported


@pytest.mark.parametrize("code,api,reason", [
    ("g = torch.autograd.grad(y.sum(), x, create_graph=True)[0]", "torch.autograd.grad", "ms.grad"),
    ("class F(torch.autograd.Function):\n    pass", "torch.autograd.Function", "bprop"),
    ("with torch.autocast('cpu'):\n    y = model(x)", "torch.autocast", "auto_mixed_precision"),
    ("scaler = torch.cuda.amp.GradScaler()", "torch.cuda.amp.GradScaler", "DynamicLossScaler"),
    ("scaler = torch.amp.GradScaler('cuda')", "torch.amp.GradScaler", "DynamicLossScaler"),
    ("from torch.nn.parallel import DistributedDataParallel as DDP\nmodel = DDP(model)",
     "torch.nn.parallel.DistributedDataParallel", "DATA_PARALLEL"),
    ("import torch.distributed as dist\ndist.init_process_group('gloo')", "torch.distributed.init_process_group",
     "msrun"),
    ("from torch.utils.data.distributed import DistributedSampler\ns = DistributedSampler(data)",
     "torch.utils.data.distributed.DistributedSampler", "num_shards"),
])
def test_marked(code, api, reason):
    assert_unsupported("import torch\n" + code + "\n", api, reason)
