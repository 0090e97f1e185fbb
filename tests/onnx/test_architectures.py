"""Real architectures built here go torch -> ONNX -> MindSpore and match torch to rel 1e-4."""
import importlib.util
import re
from pathlib import Path

import pytest
import torch
from torch import nn

from migrate.onnx.graph import Node


def conv_bn_relu(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc1 = conv_bn_relu(3, 8)
        self.enc2 = conv_bn_relu(8, 16)
        self.pool = nn.MaxPool2d(2)
        self.bottleneck = conv_bn_relu(16, 32)
        self.up2 = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.dec2 = conv_bn_relu(32, 16)
        self.up1 = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.dec1 = conv_bn_relu(16, 8)
        self.head = nn.Conv2d(8, 1, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        b = self.bottleneck(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up2(b), e2], 1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], 1))
        return self.head(d1)


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class TinyResNet(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 7, 2, 3, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        self.layer1 = Block(16, 16, 1)
        self.layer2 = Block(16, 32, 2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class TinyTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(12, 32)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(32, 4, 64, dropout=0.1, batch_first=True, activation="gelu"), 2,
            enable_nested_tensor=False)
        self.norm = nn.LayerNorm(32)
        self.head = nn.Linear(32, 5)

    def forward(self, x):
        return self.head(self.norm(self.encoder(self.embed(x))).mean(1))


def _randomise_bn(model):
    """Non-trivial running statistics, so BatchNorm conversion is really exercised."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)


def test_unet_matches_torch(roundtrip):
    model = TinyUNet()
    _randomise_bn(model)
    report, _, _ = roundtrip(model, torch.randn(2, 3, 32, 32), name="tiny_unet")
    code = open(report.code_path).read()
    # reads like a hand port: named layers, torch semantics injected
    assert "self.enc1_0 = nn.Conv2d(3, 8, kernel_size=(3, 3)" in code and "pad_mode='pad'" in code
    assert "self.enc1_1 = nn.BatchNorm2d(8, eps=1e-05, momentum=0.9)" in code
    assert "self.up2 = nn.Conv2dTranspose(32, 16" in code
    assert "self.pool = nn.MaxPool2d(kernel_size=(2, 2), stride=(2, 2)" in code
    assert "ops.cat((up2, enc2_2_relu,), axis=1)" in code
    assert code.count("nn.MaxPool2d") == 1  # torch's one self.pool, called twice, stays one layer
    assert report.class_name == "TinyUnet"


def test_resnet_matches_torch(roundtrip):
    model = TinyResNet()
    _randomise_bn(model)
    report, _, _ = roundtrip(model, torch.randn(2, 3, 32, 32), name="tiny_resnet")
    code = open(report.code_path).read()
    assert "self.fc = nn.Dense(32, 10, has_bias=True)" in code
    assert "self.layer2_down_0 = nn.Conv2d(16, 32, kernel_size=(1, 1), stride=(2, 2)" in code
    assert "Shape" not in code and "Gather" not in code  # shape arithmetic resolved


@pytest.mark.parametrize("opset", [None, 17])
def test_transformer_matches_torch(roundtrip, opset):
    model = TinyTransformer()
    report, _, _ = roundtrip(model, torch.randn(2, 7, 12), name="tiny_transformer", opset=opset)
    code = open(report.code_path).read()
    assert "self.encoder_layers_0_linear1 = nn.Dense(32, 64, has_bias=True)" in code
    assert "self.encoder_layers_0_self_attn_in_proj = nn.Dense(32, 96, has_bias=True)" in code
    assert "ops.gelu(" in code and "ops.erf(" not in code  # Gelu (opset 20) or the Erf chain (17) fused
    assert "nn.LayerNorm((32,), begin_norm_axis=2, begin_params_axis=2, epsilon=1e-05)" in code
    # constant Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains became literal shapes
    assert re.search(r"ops\.reshape\(\w+, \(7, 2, 3, 32\)\)", code)


CRACK_UNET = Path(__file__).resolve().parents[2] / "examples" / "crack_unet" / "torch" / "model.py"


@pytest.mark.slow
@pytest.mark.skipif(not CRACK_UNET.exists(), reason="crack_unet example not present")
def test_crack_unet_example_matches_torch(roundtrip):
    """The reference user's model (examples/crack_unet) through the graph route."""
    spec = importlib.util.spec_from_file_location("crack_unet_model", CRACK_UNET)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.CrackUNet()
    _randomise_bn(model)
    report, _, _ = roundtrip(model, torch.randn(2, 3, 64, 64), name="crack_unet")
    code = open(report.code_path).read()
    assert "encoders_0_block_2_relu = ops.relu(encoders_0_block_1)" in code


@pytest.mark.parametrize("node_name,path", [
    ("/stem/stem.0/Conv", "stem.0"),
    ("/encoders.0/block/block.2/Relu", "encoders.0.block.2"),
    ("/enc/self_attn/Softmax", "enc.self_attn"),
    ("/Add", ""),
    ("Identity_13", ""),
])
def test_module_path_from_node_name(node_name, path):
    assert Node("Relu", node_name, [], []).module_path == path
