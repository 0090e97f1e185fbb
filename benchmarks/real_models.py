"""Real models, ported with no hand edit: do they build in MindSpore and pass parity?

The corpus is real code from the package index: torchvision's classification and segmentation models,
segmentation_models_pytorch (smp) Unet / UnetPlusPlus / FPN / DeepLabV3 with resnet and vgg encoders, and a spread
of timm models. The benchmark

1. downloads the wheels (``pip download --no-deps``, pinned versions) into ``benchmarks/corpus/`` (git-ignored, never
   committed) and unpacks them; smp's one non-torch import, huggingface_hub, is installed there too;
2. converts each package's sources with the real CLI, ``msmigrate convert PKG -o ms/PKG --report ...``;
3. for each model, in a worker process that imports the frameworks once and takes model after model (a crash or a
   hang costs one row; a new worker takes the rest): builds it in torch from the original
   sources, builds it in MindSpore from the converted sources (each side in its own import namespace: the three
   packages are dropped from ``sys.modules`` between the two), copies the weights (``migrate.weights``) and runs
   ``migrate.parity.compare`` forward and backward on a small random input;
4. writes ``docs/real_models.md``: model, markers left, builds, parity verdict, first divergence, seconds, and for
   every failure the stage and the one-line error (with the converted file and line it came from).

    .venv/bin/python benchmarks/real_models.py                      # the whole corpus (tens of minutes)
    .venv/bin/python benchmarks/real_models.py --only resnet18      # models whose id contains a text
    .venv/bin/python benchmarks/real_models.py --skip-convert       # reuse the converted packages
    .venv/bin/python benchmarks/real_models.py --fetch-only         # just download and unpack
    .venv/bin/python benchmarks/real_models.py --merge A.json B.json  # one table from partial runs
    .venv/bin/python benchmarks/real_models.py --merge docs/real_models.md A.json  # A's rows into the table

One environment fix is applied on both sides alike, and is not a hand edit of a model: torchvision's
``_meta_registrations`` (fake kernels for its C++ detection ops, whose CUDA build cannot load beside the CPU
torch 2.13.0 here) is replaced by an empty module. No model in the corpus uses those ops.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback
import zipfile
from dataclasses import asdict, dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "benchmarks", "corpus")
DOC = os.path.join(ROOT, "docs", "real_models.md")

# torchvision 0.28 is the release built against torch 2.13.0 (its metadata requires torch==2.13.0 exactly)
WHEELS = {"torchvision": "torchvision==0.28.0", "timm": "timm==1.0.31",
          "segmentation_models_pytorch": "segmentation_models_pytorch==0.6.0"}
PACKAGES = list(WHEELS)            # converted in this order; smp imports timm and torchvision
HUB_DEPS = "huggingface_hub==2.4.0"  # smp imports it at module level (hub mixin); no torch in its dependencies
MARKER = "# msmigrate: unsupported"
DEPENDS = {"torchvision": ["torchvision"], "timm": ["timm", "torchvision"],  # what each converted package imports
           "segmentation_models_pytorch": ["segmentation_models_pytorch", "timm", "torchvision"]}


# ------------------------------------------------------------------------------ the corpus
@dataclass
class Case:
    id: str                      # unique, "package/model"
    module: str                  # importable module holding the factory
    factory: str                 # attribute of module (a function or class)
    args: list = field(default_factory=list)
    kwargs: dict = field(default_factory=dict)
    input: tuple = (2, 3, 64, 64)
    note: str = ""
    # research repositories (RESEARCH): the checkout, the model built by an expression, several inputs
    repo: str = ""               # a key of REPOS
    entry: str = ""              # a Python expression over ``M`` (the imported module): "M.UNet(3, 1)"
    inputs: list = field(default_factory=list)  # [spec, ...] when the model takes several inputs (_make_input)
    call_kwargs: dict = field(default_factory=dict)  # {name: spec}: keyword arguments of the forward call


def _tv(name, input=(2, 3, 64, 64), **kw):
    return Case(f"torchvision/{name}", "torchvision.models", name, kwargs={"weights": None, "num_classes": 10, **kw},
                input=input)


def _tvseg(name, **kw):
    return Case(f"torchvision/{name}", "torchvision.models.segmentation", name,
                kwargs={"weights": None, "weights_backbone": None, "num_classes": 3, **kw})


def _smp(arch, encoder):
    return Case(f"smp/{arch}-{encoder}", "segmentation_models_pytorch", arch,
                kwargs={"encoder_name": encoder, "encoder_weights": None, "classes": 2})


def _timm(name, input=(2, 3, 64, 64), **kw):
    return Case(f"timm/{name}", "timm", "create_model", args=[name],
                kwargs={"pretrained": False, "num_classes": 10, **kw}, input=input)


TORCHVISION = [
    _tv("resnet18"), _tv("resnet34"), _tv("resnet50"), _tv("resnet101"), _tv("resnet152", input=(2, 3, 32, 32)),
    _tv("resnext50_32x4d"), _tv("wide_resnet50_2", input=(2, 3, 32, 32)),
    _tv("vgg11"), _tv("vgg11_bn"), _tv("vgg13"), _tv("vgg13_bn"), _tv("vgg16"), _tv("vgg16_bn"), _tv("vgg19"),
    _tv("vgg19_bn"),
    _tv("alexnet"), _tv("squeezenet1_0"), _tv("squeezenet1_1"), _tv("densenet121"),
    _tv("mobilenet_v2"), _tv("mobilenet_v3_small"), _tv("mobilenet_v3_large"),
    _tv("efficientnet_b0"), _tv("efficientnet_v2_s"), _tv("mnasnet0_5"), _tv("shufflenet_v2_x0_5"),
    _tv("regnet_x_400mf"), _tv("regnet_y_400mf"),
    _tv("googlenet", aux_logits=False, init_weights=False), _tv("inception_v3", input=(2, 3, 80, 80),
                                                                aux_logits=False, init_weights=False),
    _tv("convnext_tiny"), _tv("swin_t"), _tv("vit_b_16", input=(2, 3, 32, 32), image_size=32),
    _tvseg("fcn_resnet50"), _tvseg("deeplabv3_resnet50"), _tvseg("deeplabv3_mobilenet_v3_large"),
    _tvseg("lraspp_mobilenet_v3_large"),
]

SMP = [_smp(a, e) for a in ("Unet", "UnetPlusPlus", "FPN") for e in ("resnet18", "resnet34", "vgg11", "vgg16")] + [
    # smp's DeepLabV3 needs a dilatable encoder: its vgg encoders refuse `make_dilated`, so only resnets
    _smp("DeepLabV3", "resnet18"), _smp("DeepLabV3", "resnet34"),
]

TIMM = [
    _timm("resnet10t"), _timm("resnet18"), _timm("resnet18d"), _timm("resnet26d"), _timm("resnet34"),
    _timm("resnet50"), _timm("seresnet18"), _timm("ecaresnet26t"), _timm("resnext26ts"), _timm("resnest14d"),
    _timm("res2net50_26w_4s"), _timm("skresnet18"), _timm("dla34"), _timm("densenet121"), _timm("vgg11"),
    _timm("vgg11_bn"), _timm("repvgg_a0"), _timm("regnetx_002"), _timm("regnety_002"), _timm("cspresnet50"),
    _timm("efficientnet_b0"), _timm("efficientnet_lite0"), _timm("tf_efficientnet_b0"), _timm("mobilenetv2_050"),
    _timm("mobilenetv3_small_050"), _timm("mobilenetv3_large_100"), _timm("mixnet_s"), _timm("mnasnet_small"),
    _timm("fbnetc_100"), _timm("spnasnet_100"), _timm("ghostnet_100"), _timm("lcnet_050"), _timm("tinynet_e"),
    _timm("rexnet_100"), _timm("hardcorenas_a"), _timm("mobileone_s0"), _timm("gernet_s"),
    _timm("selecsls42b"), _timm("hrnet_w18_small"), _timm("inception_v3", input=(2, 3, 80, 80)),
    _timm("convnext_atto"), _timm("poolformer_s12"), _timm("convmixer_768_32", input=(2, 3, 32, 32)),
    _timm("vit_tiny_patch16_224", img_size=64), _timm("deit_tiny_patch16_224", img_size=64),
    _timm("swin_tiny_patch4_window7_224", input=(2, 3, 56, 56), img_size=56), _timm("mobilevit_xxs"), _timm("levit_128s", img_size=64),
    _timm("pit_ti_224", img_size=64), _timm("edgenext_xx_small"), _timm("efficientvit_b0"),
    _timm("fastvit_t8"), _timm("coat_lite_tiny", img_size=64), _timm("xcit_nano_12_p16_224", img_size=64),
]

CASES = TORCHVISION + SMP + TIMM


# ------------------------------------------------------------------------------ the research corpus
# Public research repositories (../shared/corpus/research_repos.md): pinned commits, checked out from local git mirrors
# (``--mirror DIR``: DIR/OWNER+NAME/repo, a bare git directory or a clone) into the git-ignored
# benchmarks/corpus/research/src/; each repository's model folders are converted as a project into
# research/ms/ (the rest of the checkout copied beside them unchanged, so imports from outside the model folders
# still resolve: to torch code, which then shows in the row). Never a pretrained flag.
@dataclass
class Repo:
    key: str                     # the short name in model ids
    github: str                  # OWNER/NAME
    commit: str
    folders: list                # converted, relative to the checkout (a folder or a .py file)
    root: str = ""               # the sys.path root, relative to the checkout
    crack: bool = False          # a crack / defect model (the mission's case)
    # modules the repository imports at load time that are not installed here and that no model runs (cv2 for data
    # loaders, loguru, imgaug): stubbed alike on both sides (_StubFinder), never installed into the environment
    shims: tuple = ()
    # files a repository reads from $HOME at import ({path under HOME: path in the checkout}): HOME then points at
    # CORPUS/research/home/KEY holding copies of them
    home: dict = field(default_factory=dict)


REPOS = {r.key: r for r in [
    Repo("segdecnetpp", "vicoslab/segdec-net-plusplus-conbuildmat2023", "b0c553bfa2", ["models.py"], crack=True),
    Repo("segdecnet", "seanXYZ/SegDecNet", "b21b2d7756", ["models.py"], crack=True),
    Repo("cracksegformer", "Li-Hubing/CrackSegFormer", "94eaa5adce",
         ["models/segformer", "models/deeplab_v3", "models/fcn"], crack=True),
    Repo("ct-crackseg", "HqiTao/CT-crackseg", "cae03437fb", ["model"], crack=True),
    Repo("crackseu", "hzlbbfrog/CrackSeU", "6ee2f021f9", ["Nets"], crack=True),
    Repo("linkcrack", "urban-informatics/LinkCrack", "7973502ed0", ["model"], crack=True),
    Repo("draem", "VitjanZ/DRAEM", "2dbf67397a", ["model_unet.py"], crack=True),
    Repo("yakhyo-crack", "yakhyo/crack-segmentation", "3d7462a1ab", ["models"], crack=True),
    Repo("mts-crack", "zfsu3722/MTS-Based-Lightweight-Pavement-Crack-Detection-Model", "9e51319b14", ["model"],
         root="model", crack=True),
    Repo("starkan", "qinjiang11111/StarKAN-for-crack-segmentation", "8d08cdb07b", ["model.py"], crack=True),
    Repo("segformer-pytorch", "lucidrains/segformer-pytorch", "b49efeae7b", ["segformer_pytorch"]),
    Repo("cifar-models", "chenyaofo/pytorch-cifar-models", "786c16252c", ["pytorch_cifar_models"]),
    Repo("efficientnet", "lukemelas/EfficientNet-PyTorch", "7e8b0d3121", ["efficientnet_pytorch"]),
    Repo("repvgg", "DingXiaoH/RepVGG", "eae7c52040", ["repvgg.py", "se_block.py"]),
    Repo("cbam", "Jongchan/attention-module", "459efad0e0", ["MODELS"]),
    Repo("stargan", "yunjey/stargan", "94dd002e93", ["model.py"]),
    Repo("restormer", "swz30/Restormer", "df766d5521", ["basicsr/models/archs/restormer_arch.py"],
         root="basicsr/models/archs"),
    Repo("srgan", "Lornatang/SRGAN-PyTorch", "8842030eb4", ["model.py"]),
    # segmentation, medical, classification (added)
    Repo("semseg", "meetps/pytorch-semseg", "801fb20054", ["ptsemseg/models"]),
    Repo("csail-semseg", "CSAILVision/semantic-segmentation-pytorch", "8f27c9b97d",
         ["mit_semseg/models", "mit_semseg/lib/nn"]),
    Repo("hrnet-seg", "HRNet/HRNet-Semantic-Segmentation", "0bbb288044", ["lib/models"], root="lib"),
    Repo("transunet", "Beckschen/TransUNet", "02ef0010b3", ["networks"]),
    Repo("medt", "jeya-maria-jose/Medical-Transformer", "62f40a530c", ["lib/models"]),
    Repo("deeplab-kazuto", "kazuto1011/deeplab-pytorch", "4219467fa5", ["libs/models"]),
    Repo("pidnet", "XuJiacong/PIDNet", "4c158cf24c", ["models"]),
    Repo("3dunet", "wolny/pytorch-3dunet", "a33e2c7038", ["pytorch3dunet/unet3d"]),
    Repo("attention-gated", "ozan-oktay/Attention-Gated-Networks", "eee4881fdc",
         ["models/networks", "models/layers", "models/networks_other.py"]),
    Repo("unet-bubbliiiing", "bubbliiiing/unet-pytorch", "5bcd6b4c83", ["nets"]),
    Repo("pretrainedmodels", "Cadene/pretrained-models.pytorch", "8aae3d8f11", ["pretrainedmodels/models"]),
    # GANs, language models, detectors (added)
    Repo("adain", "naoto0804/pytorch-AdaIN", "47950d0e66", ["net.py", "function.py"]),
    Repo("stylegan", "rosinality/style-based-gan-pytorch", "07fa60be77", ["model.py"]),
    Repo("transformer", "jadore801120/attention-is-all-you-need-pytorch", "132907dd27", ["transformer"]),
    Repo("bert", "codertimo/BERT-pytorch", "d10dc4f9d5", ["bert_pytorch/model"]),
    Repo("mamba", "johnma2006/mamba-minimal", "03de542a36", ["model.py"]),
    Repo("palm", "lucidrains/PaLM-pytorch", "7164d13d5a", ["palm_pytorch/palm_pytorch.py"]),
    Repo("yolov3", "eriklindernoren/PyTorch-YOLOv3", "1d621c8489", ["pytorchyolo/models.py"],
         shims=("imgaug", "terminaltables", "matplotlib")),
    Repo("yolov4", "Tianxiaomo/pytorch-YOLOv4", "a65d219f90", ["models.py", "tool"]),
    Repo("ssd", "amdegroot/ssd.pytorch", "5b0b77faa9", ["ssd.py", "layers"], shims=("cv2",),
         home={"data/coco/coco_labels.txt": "data/coco_labels.txt"}),
    Repo("retinaface", "biubug6/Pytorch_Retinaface", "b984b4b775", ["models"], shims=("cv2",)),
    Repo("yolox", "Megvii-BaseDetection/YOLOX", "6ddff48243", ["yolox/models"], shims=("loguru", "cv2", "tabulate")),
]}


def _rc(repo, name, module, entry, input=(1, 3, 256, 256), inputs=(), kwargs=None):
    return Case(f"research/{repo}/{name}", module, "", input=tuple(input), repo=repo, entry=entry,
                inputs=[list(i) if isinstance(i, tuple) else i for i in inputs], call_kwargs=dict(kwargs or {}))


def ids(shape, high, low=0):
    """An input spec: an int64 tensor of token ids in [low, high)."""
    return {"ints": list(shape), "low": low, "high": high}


def tensors(*shapes):
    """An input spec: a Python list of float tensors."""
    return {"list": [list(s) for s in shapes]}


def value(v):
    """An input spec: a plain Python value passed as it is (a step count, a flag)."""
    return {"value": v}


def const(nested):
    """An input spec: a float32 tensor of these numbers (detection targets: class and box per object)."""
    return {"const": nested}


# YOLOX computes its losses in train mode (parity's mode) and needs labels: (class, cx, cy, w, h) per object, pixels
YOLOX_TARGETS = const([[[1, 100, 120, 60, 80], [5, 200, 150, 90, 120]]])

RESEARCH = [
    _rc("segdecnetpp", "SegDecNetPlusPlus", "models",
        "(m := M.SegDecNetPlusPlus(device='cpu', input_width=256, input_height=256, input_channels=3))"
        ".set_gradient_multipliers(1.0) or m"),
    _rc("segdecnetpp", "SegDecNetOriginalJIM", "models",
        "(m := M.SegDecNetOriginalJIM(device='cpu', input_width=256, input_height=256, input_channels=3))"
        ".set_gradient_multipliers(1.0) or m"),
    _rc("segdecnet", "SegmentNet", "models", "M.SegmentNet(in_channels=3)", (1, 3, 512, 256)),
    _rc("segdecnet", "DecisionNet", "models", "M.DecisionNet()", inputs=[(1, 1024, 64, 32), (1, 1, 64, 32)]),
    _rc("cracksegformer", "SegFormer-b0", "models.segformer.segformer", "M.SegFormer(num_classes=2, phi='b0')"),
    _rc("cracksegformer", "deeplabv3_mobilenetv3_large", "models.deeplab_v3.deeplabv3",
        "M.deeplabv3_mobilenetv3_large(aux=True, num_classes=2)", (2, 3, 128, 128)),  # BN on 1x1 pooled: batch 2
    _rc("cracksegformer", "fcn_resnet50", "models.fcn.fcn", "M.fcn_resnet50(aux=True, num_classes=2)"),
    _rc("ct-crackseg", "TransMUNet", "model.TransMUNet", "M.TransMUNet(n_classes=1)"),
    _rc("crackseu", "CrackSeU_B_LN_VT", "Nets.CrackSeU_B_LN_VT", "M.CrackSeU(3, 1)", (1, 3, 352, 352)),
    _rc("crackseu", "CrackSeU_Inference", "Nets.CrackSeU_B_LN_VT", "M.CrackSeU_Inference(3, 1)", (1, 3, 352, 352)),
    _rc("crackseu", "CrackSeU_B_BN", "Nets.CrackSeU_B_BN", "M.CrackSeU(3, 1)", (1, 3, 352, 352)),
    _rc("crackseu", "CrackSeU_B_LN_He", "Nets.CrackSeU_B_LN_He", "M.CrackSeU(3, 1)", (1, 3, 352, 352)),
    _rc("linkcrack", "LinkCrack", "model.linkcrack", "M.LinkCrack()"),
    _rc("draem", "ReconstructiveSubNetwork", "model_unet",
        "M.ReconstructiveSubNetwork(in_channels=3, out_channels=3, base_width=32)"),
    _rc("draem", "DiscriminativeSubNetwork", "model_unet",
        "M.DiscriminativeSubNetwork(in_channels=6, out_channels=2, base_channels=16)", (1, 6, 256, 256)),
    _rc("yakhyo-crack", "UNet", "models", "M.UNet(in_channels=3, out_channels=2)"),
    _rc("mts-crack", "AutoEncoder", "pre_networks", "M.AutoEncoder()", (1, 1, 256, 256)),
    _rc("mts-crack", "ErisBlock", "eris_network", "M.ErisBlock()", (1, 1, 256, 256)),
    _rc("mts-crack", "Decoder", "decoder_networks", "M.Decoder(in_channels=256)", (1, 256, 64, 64)),
    _rc("starkan", "StarKAN", "model", "M.StarKAN(n_classes=1)", (1, 3, 320, 320)),
    # the rest of research_repos.md, as time allowed
    _rc("segformer-pytorch", "Segformer", "segformer_pytorch",
        "M.Segformer(dims=(32, 64, 160, 256), heads=(1, 2, 5, 8), ff_expansion=(8, 8, 4, 4), "
        "reduction_ratio=(8, 4, 2, 1), num_layers=2, decoder_dim=256, num_classes=4)"),
    _rc("cifar-models", "cifar10_resnet20", "pytorch_cifar_models", "M.cifar10_resnet20(pretrained=False)",
        (2, 3, 32, 32)),
    _rc("cifar-models", "cifar100_vgg11_bn", "pytorch_cifar_models", "M.cifar100_vgg11_bn(pretrained=False)",
        (2, 3, 32, 32)),
    _rc("cifar-models", "cifar10_mobilenetv2_x0_5", "pytorch_cifar_models",
        "M.cifar10_mobilenetv2_x0_5(pretrained=False)", (2, 3, 32, 32)),
    _rc("cifar-models", "cifar10_shufflenetv2_x0_5", "pytorch_cifar_models",
        "M.cifar10_shufflenetv2_x0_5(pretrained=False)", (2, 3, 32, 32)),
    _rc("cifar-models", "cifar10_repvgg_a0", "pytorch_cifar_models", "M.cifar10_repvgg_a0(pretrained=False)",
        (2, 3, 32, 32)),
    _rc("efficientnet", "efficientnet-b0", "efficientnet_pytorch",
        "M.EfficientNet.from_name('efficientnet-b0', num_classes=10)", (2, 3, 224, 224)),
    _rc("repvgg", "RepVGG_A0", "repvgg", "M.create_RepVGG_A0(deploy=False)", (2, 3, 64, 64)),
    _rc("cbam", "ResidualNet-CIFAR10-CBAM", "MODELS.model_resnet", "M.ResidualNet('CIFAR10', 18, 10, 'CBAM')",
        (2, 3, 32, 32)),
    _rc("stargan", "Generator", "model", "M.Generator(conv_dim=32, c_dim=5, repeat_num=2)",
        inputs=[(1, 3, 64, 64), (1, 5)]),
    _rc("stargan", "Discriminator", "model", "M.Discriminator(image_size=128, conv_dim=32, c_dim=5, repeat_num=6)",
        (1, 3, 128, 128)),
    _rc("restormer", "Restormer", "restormer_arch",
        "M.Restormer(inp_channels=3, out_channels=3, dim=16, num_blocks=[1, 1, 1, 1], num_refinement_blocks=1, "
        "heads=[1, 2, 4, 8], ffn_expansion_factor=2.66, bias=False, LayerNorm_type='WithBias')", (1, 3, 64, 64)),
    _rc("srgan", "srresnet_x4", "model", "M.srresnet_x4(in_channels=3, out_channels=3, channels=64, num_rcb=4)",
        (1, 3, 24, 24)),
    _rc("srgan", "discriminator_for_vgg", "model",
        "M.discriminator_for_vgg(in_channels=3, out_channels=1, channels=64)", (1, 3, 96, 96)),
    # segmentation, medical, classification (added)
    # smaller inputs than research_repos.md's where the model takes any size (parity on 2 shared CPU cores): semseg
    # segnet / fcn8s 256 -> 64, pspnet 256 -> 128, icnet 1025x2049 -> 129x257, frrn 256x512 -> 128x256; CSAIL 256 ->
    # 128; HRNet 256x512 -> 128x256; deeplab-pytorch 256 -> 128; PIDNet 512x1024 -> 256x512; pytorch-3dunet 3D
    # 32x64x64 -> 16x32x32; Attention-Gated 3D 64^3 -> 32^3; bubbliiiing's unet 256 -> 128. The rest as listed.
    # Batch 2 where a BatchNorm follows a global pooling (PPM, ASPP, DAPPM): torch itself refuses one value per
    # channel in training mode.
    _rc("semseg", "segnet", "ptsemseg.models.segnet", "M.segnet(n_classes=21, in_channels=3)", (1, 3, 64, 64)),
    _rc("semseg", "unet", "ptsemseg.models.unet",
        "M.unet(feature_scale=4, n_classes=2, is_deconv=True, in_channels=3)", (1, 3, 572, 572)),
    _rc("semseg", "fcn8s", "ptsemseg.models.fcn", "M.fcn8s(n_classes=21)", (1, 3, 64, 64)),  # corpus: 256
    _rc("semseg", "pspnet", "ptsemseg.models.pspnet",
        "M.pspnet(n_classes=19, block_config=[3, 4, 6, 3], input_size=(128, 128))", (2, 3, 128, 128)),  # 256
    # icnet: the corpus' 1025x2049 made 129x257 (the model takes input_size; the same pyramid, 8x smaller)
    _rc("semseg", "icnet", "ptsemseg.models.icnet", "M.icnet(n_classes=19, input_size=(129, 257))",
        (2, 3, 129, 257)),
    _rc("semseg", "frrnA", "ptsemseg.models.frrn", "M.frrn(n_classes=19, model_type='A')", (1, 3, 128, 256)),
    # the encoder and the decoder are run as the repository's training script does: dec(enc(x), segSize)
    _rc("csail-semseg", "ResnetDilated18-PPMDeepsup", "mit_semseg.models.models",
        "pair(lambda s, x: s.dec(s.enc(x, return_feature_maps=True), segSize=(128, 128)), "
        "enc=M.ResnetDilated(imp('mit_semseg.models.resnet').resnet18(pretrained=False), dilate_scale=8), "
        "dec=M.ModelBuilder.build_decoder(arch='ppm_deepsup', fc_dim=512, num_class=150, use_softmax=True))", (2, 3, 128, 128)),
    _rc("csail-semseg", "MobileNetV2Dilated-C1DeepSup", "mit_semseg.models.models",
        "pair(lambda s, x: s.dec(s.enc(x, return_feature_maps=True), segSize=(128, 128)), "
        "enc=M.MobileNetV2Dilated(imp('mit_semseg.models.mobilenet').mobilenetv2(pretrained=False), "
        "dilate_scale=8), "
        "dec=M.ModelBuilder.build_decoder(arch='c1_deepsup', fc_dim=320, num_class=150, use_softmax=True))", (2, 3, 128, 128)),
    _rc("csail-semseg", "HRNetV2-C1", "mit_semseg.models.models",
        "pair(lambda s, x: s.dec(s.enc(x, return_feature_maps=True), segSize=(128, 128)), "
        "enc=imp('mit_semseg.models.hrnet').hrnetv2(pretrained=False), "
        "dec=M.ModelBuilder.build_decoder(arch='c1', fc_dim=720, num_class=150, use_softmax=True))", (2, 3, 128, 128)),
    _rc("csail-semseg", "Resnet50-UPerNet", "mit_semseg.models.models",
        "pair(lambda s, x: s.dec(s.enc(x, return_feature_maps=True), segSize=(128, 128)), "
        "enc=M.Resnet(imp('mit_semseg.models.resnet').resnet50(pretrained=False)), "
        "dec=M.ModelBuilder.build_decoder(arch='upernet', fc_dim=2048, num_class=150, use_softmax=True))", (2, 3, 128, 128)),
    # HRNet: np.int (gone since numpy 1.24) set back before building, as the corpus says; the yacs config is a shim
    _rc("hrnet-seg", "seg_hrnet_w48", "models.seg_hrnet",
        "(setattr(imp('numpy'), 'int', int), c := imp('config').config, c.defrost(), c.merge_from_file("
        "'experiments/cityscapes/seg_hrnet_w48_train_512x1024_sgd_lr1e-2_wd5e-4_bs_12_epoch484.yaml'), "
        "setattr(c.MODEL, 'PRETRAINED', ''), M.get_seg_model(c))[-1]", (1, 3, 128, 256)),
    _rc("hrnet-seg", "seg_hrnet_ocr_w48", "models.seg_hrnet_ocr",
        "(setattr(imp('numpy'), 'int', int), c := imp('config').config, c.defrost(), c.merge_from_file("
        "'experiments/cityscapes/seg_hrnet_ocr_w48_train_512x1024_sgd_lr1e-2_wd5e-4_bs_12_epoch484.yaml'), "
        "setattr(c.MODEL, 'PRETRAINED', ''), M.get_seg_model(c))[-1]", (1, 3, 128, 256)),
    _rc("transunet", "R50-ViT-B_16", "networks.vit_seg_modeling",
        "(c := M.CONFIGS['R50-ViT-B_16'], setattr(c, 'n_classes', 9), setattr(c, 'n_skip', 3), "
        "setattr(c.patches, 'grid', (14, 14)), setattr(c.transformer, 'num_layers', 2), "
        "M.VisionTransformer(c, img_size=224, num_classes=9))[-1]", (1, 3, 224, 224)),
    _rc("transunet", "ViT-B_16", "networks.vit_seg_modeling",
        "(c := M.CONFIGS['ViT-B_16'], setattr(c, 'n_classes', 9), setattr(c, 'n_skip', 0), "
        "setattr(c.transformer, 'num_layers', 2), M.VisionTransformer(c, img_size=224, num_classes=9))[-1]",
        (1, 3, 224, 224)),
    _rc("medt", "MedT", "lib.models.axialnet", "M.MedT(img_size=128, imgchan=3)", (1, 3, 128, 128)),
    _rc("medt", "gated", "lib.models.axialnet", "M.gated(img_size=128, imgchan=3)", (1, 3, 128, 128)),
    _rc("medt", "axialunet", "lib.models.axialnet", "M.axialunet(img_size=128, imgchan=3)", (1, 3, 128, 128)),
    _rc("deeplab-kazuto", "DeepLabV3Plus", "libs.models",
        "M.DeepLabV3Plus(n_classes=21, n_blocks=[3, 4, 6, 3], atrous_rates=[6, 12, 18], multi_grids=[1, 2, 4], "
        "output_stride=16)", (2, 3, 128, 128)),
    _rc("deeplab-kazuto", "MSC-DeepLabV3", "libs.models",
        "M.MSC(base=M.DeepLabV3(n_classes=21, n_blocks=[3, 4, 6, 3], atrous_rates=[6, 12, 18], "
        "multi_grids=[1, 2, 4], output_stride=16), scales=[0.5, 0.75])", (2, 3, 128, 128)),
    _rc("deeplab-kazuto", "DeepLabV2_ResNet101_MSC", "libs.models", "M.DeepLabV2_ResNet101_MSC(n_classes=21)", (2, 3, 128, 128)),
    _rc("deeplab-kazuto", "DeepLabV1_ResNet101", "libs.models", "M.DeepLabV1_ResNet101(n_classes=21)", (1, 3, 128, 128)),
    _rc("pidnet", "PIDNet-S", "models.pidnet",
        "M.PIDNet(m=2, n=3, num_classes=19, planes=32, ppm_planes=96, head_planes=128, augment=False)",
        (2, 3, 256, 512)),
    _rc("pidnet", "PIDNet-S-augment", "models.pidnet",
        "M.PIDNet(m=2, n=3, num_classes=19, planes=32, ppm_planes=96, head_planes=128, augment=True)",
        (2, 3, 256, 512)),
    _rc("3dunet", "UNet3D", "pytorch3dunet.unet3d.model",
        "M.UNet3D(in_channels=1, out_channels=2, f_maps=16, num_levels=3, layer_order='gcr', num_groups=8)",
        (1, 1, 16, 32, 32)),
    _rc("3dunet", "ResidualUNetSE3D", "pytorch3dunet.unet3d.model",
        "M.ResidualUNetSE3D(in_channels=1, out_channels=2, f_maps=16, num_levels=3)", (1, 1, 16, 32, 32)),
    _rc("3dunet", "UNet2D", "pytorch3dunet.unet3d.model",
        "M.UNet2D(in_channels=3, out_channels=2, f_maps=16, num_levels=4, layer_order='cbr')", (1, 3, 128, 128)),
    _rc("attention-gated", "unet_ct_single_att_dsv", "models.networks",
        "M.get_network('unet_ct_single_att_dsv', n_classes=2, in_channels=1, feature_scale=4, tensor_dim='3D', "
        "nonlocal_mode='concatenation', attention_dsample=(2, 2, 2))", (1, 1, 32, 32, 32)),
    _rc("attention-gated", "unet_ct_multi_att_dsv", "models.networks",
        "M.get_network('unet_ct_multi_att_dsv', n_classes=2, in_channels=1, feature_scale=4, tensor_dim='3D', "
        "nonlocal_mode='concatenation', attention_dsample=(2, 2, 2))", (1, 1, 32, 32, 32)),
    _rc("attention-gated", "unet_grid_gating", "models.networks",
        "M.get_network('unet_grid_gating', n_classes=2, in_channels=1, feature_scale=4, tensor_dim='3D', "
        "nonlocal_mode='concatenation', attention_dsample=(2, 2, 2))", (1, 1, 32, 32, 32)),
    _rc("attention-gated", "sononet_grid_attention", "models.networks",
        "M.get_network('sononet_grid_attention', n_classes=14, in_channels=1, feature_scale=8, tensor_dim='2D', "
        "nonlocal_mode='concatenation_mean_flow', aggregation_mode='mean')", (1, 1, 208, 272)),
    _rc("attention-gated", "sononet2", "models.networks",
        "M.get_network('sononet2', n_classes=14, in_channels=1, feature_scale=8, tensor_dim='2D')",
        (1, 1, 208, 272)),
    _rc("unet-bubbliiiing", "Unet-vgg", "nets.unet",
        "(m := M.Unet(num_classes=21, pretrained=False, backbone='vgg'), "
        "imp('nets.unet_training').weights_init(m))[0]", (1, 3, 128, 128)),
    _rc("unet-bubbliiiing", "Unet-resnet50", "nets.unet",
        "(m := M.Unet(num_classes=2, pretrained=False, backbone='resnet50'), "
        "imp('nets.unet_training').weights_init(m))[0]", (1, 3, 128, 128)),
    # GANs, language models, detectors (added)
    _rc("adain", "Net", "net", "M.Net(M.vgg, M.decoder)", inputs=[(1, 3, 128, 128), (1, 3, 128, 128)]),
    _rc("adain", "decoder", "net", "M.decoder", (1, 512, 16, 16)),
    _rc("stylegan", "StyledGenerator", "model", "M.StyledGenerator(code_dim=512, n_mlp=8)",
        inputs=[(1, 512)], kwargs={"noise": tensors((1, 1, 4, 4), (1, 1, 8, 8), (1, 1, 16, 16)),
                                   "step": value(2), "alpha": value(1.0)}),
    # batch 2: the minibatch-stddev layer's var over a batch of 1 has gradient 0 in torch and NaN in MindSpore
    _rc("stylegan", "Discriminator", "model", "M.Discriminator(from_rgb_activate=True)", (2, 3, 16, 16),
        kwargs={"step": value(2), "alpha": value(1.0)}),
    _rc("transformer", "Transformer", "transformer.Models",
        "M.Transformer(n_src_vocab=100, n_trg_vocab=100, src_pad_idx=0, trg_pad_idx=0, d_word_vec=64, d_model=64, "
        "d_inner=128, n_layers=2, n_head=4, d_k=16, d_v=16, dropout=0.1, n_position=200, "
        "trg_emb_prj_weight_sharing=True, emb_src_trg_weight_sharing=True, scale_emb_or_prj='prj')",
        inputs=[ids((2, 16), 100, low=1), ids((2, 12), 100, low=1)]),
    _rc("bert", "BERT", "bert_pytorch.model", "M.BERT(vocab_size=100, hidden=64, n_layers=2, attn_heads=4, dropout=0.1)",
        inputs=[ids((2, 16), 100, low=1), ids((2, 16), 3, low=1)]),
    _rc("bert", "BERTLM", "bert_pytorch.model",
        "M.BERTLM(M.BERT(vocab_size=100, hidden=64, n_layers=2, attn_heads=4, dropout=0.1), vocab_size=100)",
        inputs=[ids((2, 16), 100, low=1), ids((2, 16), 3, low=1)]),
    _rc("mamba", "Mamba", "model", "M.Mamba(M.ModelArgs(d_model=64, n_layer=2, vocab_size=100))",
        inputs=[ids((1, 32), 100)]),
    _rc("palm", "PaLM", "palm_pytorch", "M.PaLM(num_tokens=256, dim=64, depth=2, dim_head=16, heads=4)",
        inputs=[ids((1, 64), 256)]),
    _rc("yolov3", "Darknet-yolov3-tiny", "pytorchyolo.models", "M.Darknet('config/yolov3-tiny.cfg')",
        (1, 3, 416, 416)),
    _rc("yolov3", "Darknet-yolov3", "pytorchyolo.models", "M.Darknet('config/yolov3.cfg')", (1, 3, 160, 160)),
    _rc("yolov4", "Yolov4", "models", "M.Yolov4(yolov4conv137weight=None, n_classes=80, inference=False)",
        (1, 3, 128, 128)),
    _rc("yolov4", "Darknet-yolov4-tiny", "tool.darknet2pytorch",
        "M.Darknet('cfg/yolov4-tiny.cfg', inference=True)", (1, 3, 416, 416)),
    _rc("ssd", "SSD300-train", "ssd", "M.build_ssd('train', size=300, num_classes=21)", (1, 3, 300, 300)),
    _rc("retinaface", "RetinaFace-mnet", "models.retinaface",
        "M.RetinaFace(cfg=dict(imp('data').cfg_mnet, pretrain=False), phase='test')", (1, 3, 640, 640)),
    _rc("retinaface", "RetinaFace-re50", "models.retinaface",
        "M.RetinaFace(cfg=dict(imp('data').cfg_re50, pretrain=False), phase='train')", (1, 3, 320, 320)),
    _rc("yolox", "YOLOX-nano", "yolox.models",
        "M.YOLOX(M.YOLOPAFPN(0.33, 0.25, in_channels=[256, 512, 1024], depthwise=True), "
        "M.YOLOXHead(80, 0.25, in_channels=[256, 512, 1024], depthwise=True))", inputs=[(1, 3, 416, 416)],
        kwargs={"targets": YOLOX_TARGETS}),
    _rc("yolox", "yolox_s", "yolox.models.build", "M.yolox_s(pretrained=False)", inputs=[(1, 3, 320, 320)],
        kwargs={"targets": YOLOX_TARGETS}),
] + [_rc("pretrainedmodels", name, "pretrainedmodels", f"M.{name}(num_classes=1000, pretrained=None)",
         (1, 3, size, size)) for name, size in [
    ("nasnetamobile", 224), ("pnasnet5large", 331), ("inceptionv4", 299), ("xception", 299), ("dpn68", 224),
    ("se_resnext50_32x4d", 224), ("bninception", 224), ("polynet", 331)]]


# ------------------------------------------------------------------------------ fetch and convert
class FetchError(RuntimeError):
    """The corpus cannot be downloaded (no network, no index): one line."""


def _pip(*args, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pip", *args, "--disable-pip-version-check", "-q"],
                          capture_output=True, text=True, timeout=timeout)


def fetch(corpus: str = CORPUS, packages=PACKAGES, log=print) -> dict:
    """Download and unpack the wheels of ``packages`` (and smp's huggingface_hub); returns {package: version}.
    Nothing is downloaded again when it is already there. Raises FetchError with pip's last line."""
    wheels, site, deps = (os.path.join(corpus, d) for d in ("wheels", "site", "deps"))
    os.makedirs(wheels, exist_ok=True)
    versions = {}
    for pkg in packages:
        spec = WHEELS[pkg]
        dist = pkg.replace("-", "_")
        have = [w for w in os.listdir(wheels) if w.startswith(dist + "-" + spec.split("==")[1] + "-")]
        if not have:
            log(f"downloading {spec}")
            r = _pip("download", "--no-deps", "-d", wheels, spec)
            have = [w for w in os.listdir(wheels) if w.startswith(dist + "-" + spec.split("==")[1] + "-")]
            if r.returncode or not have:
                raise FetchError(f"pip download {spec} failed: {_last(r.stderr) or 'no wheel came back'}")
        target = os.path.join(site, pkg)
        if not os.path.isdir(target):
            with zipfile.ZipFile(os.path.join(wheels, have[0])) as z:
                z.extractall(site)
        versions[pkg] = spec.split("==")[1]
    if "segmentation_models_pytorch" in packages and not os.path.isdir(os.path.join(deps, "huggingface_hub")):
        log(f"installing {HUB_DEPS} into {os.path.relpath(deps, ROOT)}")
        r = _pip("install", "--target", deps, HUB_DEPS)
        if r.returncode or not os.path.isdir(os.path.join(deps, "huggingface_hub")):
            raise FetchError(f"pip install --target {HUB_DEPS} failed: {_last(r.stderr)}")
        if os.path.isdir(os.path.join(deps, "torch")):  # never: checked because a second torch would be wrong
            raise FetchError(f"{HUB_DEPS} pulled a torch into {deps}")
    return versions


def convert(pkg: str, corpus: str = CORPUS, timeout: int = 3600) -> dict:
    """``msmigrate convert site/PKG -o ms/PKG --report ms/PKG.report.json`` through the real CLI."""
    src, out = os.path.join(corpus, "site", pkg), os.path.join(corpus, "ms", pkg)
    report = os.path.join(corpus, "ms", f"{pkg}.report.json")
    shutil.rmtree(out, ignore_errors=True)
    if os.path.exists(report):
        os.remove(report)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    try:
        r = subprocess.run([sys.executable, "-m", "migrate.cli", "convert", src, "-o", out, "--report", report],
                           capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
        rc, err = r.returncode, _last(r.stderr)
        summary = _last(r.stdout)
    except subprocess.TimeoutExpired:
        rc, err, summary = -1, f"timed out after {timeout} s", ""
    seconds = time.perf_counter() - t0
    files = sum(1 for _ in _py_files(out)) if os.path.isdir(out) else 0
    ok = rc in (0, 3) and files > 0  # 3: written, some API unsupported (markers)
    markers = sum(_markers(p) for p in _py_files(out)) if ok else None
    return {"package": pkg, "rc": rc, "ok": ok, "seconds": round(seconds, 1), "files": files, "markers": markers,
            "error": None if ok else (err or f"exit {rc}, nothing written"), "summary": summary}


RESEARCH_DEPS = ["einops==0.8.1", "torchvision==0.28.0"]  # imported by research models (torchvision: --no-deps)
MIRROR = os.environ.get("MSMIGRATE_MIRROR", os.path.join(os.path.dirname(ROOT), ".mirror"))


def research_deps(corpus: str = CORPUS, log=print) -> None:
    """einops and torchvision (no dependencies: the installed torch is the one) into CORPUS/deps."""
    deps = os.path.join(corpus, "deps")
    todo = [d for d in RESEARCH_DEPS if not os.path.isdir(os.path.join(deps, d.split("==")[0]))]
    if todo:
        log(f"installing {' '.join(todo)} into {os.path.relpath(deps, ROOT)}")
        r = _pip("install", "--no-deps", "--target", deps, *todo)
        if r.returncode:
            raise FetchError(f"pip install --target {' '.join(todo)} failed: {_last(r.stderr)}")


# Stand-ins for pip packages a research model imports but never needs to compute (the corpus' "extra pip deps"; never
# installed into the venv): written into CORPUS/shims, on sys.path for both sides alike, after CORPUS/deps. A config
# container the model reads (yacs, ml_collections) behaves as the real one for what the models use; a module only
# imported (plotting, image metrics, munch) raises if a model ever calls into it.
_ATTR_DICT = '''
import copy


class AttrDict(dict):
    """A dict whose keys are attributes, nested dicts made the same (what yacs' CfgNode and ml_collections'
    ConfigDict give the models that read them)."""

    def __init__(self, init=None, *args, **kwargs):
        super().__init__()
        for k, v in dict(init or {}).items():
            self[k] = type(self)(v) if isinstance(v, dict) and not isinstance(v, AttrDict) else v

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = type(self)(value) if isinstance(value, dict) and not isinstance(value, AttrDict) else value

    def merge(self, other):
        for k, v in other.items():
            if isinstance(v, dict) and isinstance(self.get(k), dict):
                self[k].merge(v)
            else:
                self[k] = type(self)(v) if isinstance(v, dict) else v

    def clone(self):
        return copy.deepcopy(self)

    def to_dict(self):
        return {k: v.to_dict() if isinstance(v, AttrDict) else v for k, v in self.items()}

    def defrost(self):
        pass

    freeze = defrost
'''
_STUB = '''
def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)

    def stub(*args, **kwargs):
        raise RuntimeError(f"{__name__}.{name}: a benchmark shim (the package is not installed)")
    return stub
'''
SHIMS = {
    "_msmigrate_attrdict.py": _ATTR_DICT,
    "yacs/__init__.py": "",
    "yacs/config.py": "import yaml\nfrom _msmigrate_attrdict import AttrDict\n\n\nclass CfgNode(AttrDict):\n"
                      "    def merge_from_file(self, path):\n        with open(path) as f:\n"
                      "            self.merge(yaml.safe_load(f) or {})\n",
    "ml_collections/__init__.py": "from _msmigrate_attrdict import AttrDict as ConfigDict\n",
    "munch/__init__.py": "from _msmigrate_attrdict import AttrDict as Munch\n\n\ndef munchify(x):\n"
                         "    return Munch(x) if isinstance(x, dict) else x\n",
    "matplotlib/__init__.py": _STUB, "matplotlib/pyplot.py": _STUB,
    **{f"skimage/{m}.py": _STUB for m in ("__init__", "color", "measure", "metrics", "filters", "segmentation",
                                           "exposure")},
}


def write_shims(corpus: str = CORPUS) -> str:
    """SHIMS into CORPUS/shims (rewritten each run); returns the folder."""
    top = os.path.join(corpus, "shims")
    for rel, text in SHIMS.items():
        path = os.path.join(top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if _read(path) != text:
            _write_atomic(path, text)
    return top


def _git_dir(repo: Repo, mirror: str) -> str | None:
    base = os.path.join(mirror, repo.github.replace("/", "+"), "repo")
    for d in (os.path.join(base, ".git"), base):
        if os.path.isfile(os.path.join(d, "HEAD")):
            return d
    return None


def checkout(repo: Repo, mirror: str = MIRROR, corpus: str = CORPUS) -> str | None:
    """Check ``repo`` out at its pinned commit into CORPUS/research/src/KEY (kept when already there). Returns None,
    or one line saying why not (the mirror is missing: how to fetch it)."""
    dest = os.path.join(corpus, "research", "src", repo.key)
    stamp = os.path.join(dest, ".msmigrate-commit")
    if os.path.exists(stamp) and open(stamp).read().strip() == repo.commit:
        return None
    gitdir = _git_dir(repo, mirror)
    if gitdir is None:
        return (f"no mirror of {repo.github} at {os.path.join(mirror, repo.github.replace('/', '+'), 'repo')}: fetch "
                f"it with `git clone --bare https://github.com/{repo.github} "
                f"{os.path.join(mirror, repo.github.replace('/', '+'), 'repo')}` (or pass --mirror DIR)")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    git = ["git", "--git-dir", gitdir, "--work-tree", dest]
    r = subprocess.run(git[:3] + ["ls-tree", "--name-only", repo.commit], capture_output=True, text=True)
    if r.returncode:
        return f"{repo.github}: commit {repo.commit} is not in the mirror {gitdir}: {_last(r.stderr)}"
    for entry in r.stdout.splitlines():  # one by one: a mirror may lack a large data blob the models never read
        subprocess.run(git + ["checkout", repo.commit, "--", entry], capture_output=True, text=True)
    missing = [f for f in repo.folders if not os.path.exists(os.path.join(dest, f))]
    if missing:
        return f"{repo.github}@{repo.commit}: {', '.join(missing)} did not check out"
    with open(stamp, "w") as f:
        f.write(repo.commit)
    return None


def convert_repo(repo: Repo, corpus: str = CORPUS, timeout: int = 1800) -> dict:
    """The checkout copied to CORPUS/research/ms/KEY, each model folder replaced by ``msmigrate convert FOLDER``'s
    output (the real CLI; a folder converts as one project)."""
    src, out = (os.path.join(corpus, "research", d, repo.key) for d in ("src", "ms"))
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(src, out, symlinks=True,  # a checkout may hold dangling links (CSAIL: notebooks/ckpt)
                    ignore=shutil.ignore_patterns("__pycache__", ".msmigrate-commit"))
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    t0 = time.perf_counter()
    rcs, errors, partial, summaries, files, markers = [], [], [], [], 0, 0
    for i, folder in enumerate(repo.folders):
        target = os.path.join(out, folder)
        if os.path.isdir(target):
            shutil.rmtree(target)
        elif os.path.exists(target):
            os.remove(target)
        report = os.path.join(corpus, "research", "ms", f"{repo.key}.{i}.report.json")
        try:
            r = subprocess.run([sys.executable, "-m", "migrate.cli", "convert", os.path.join(src, folder), "-o",
                                target, "--report", report], capture_output=True, text=True, timeout=timeout,
                               env=env, cwd=ROOT)
            rcs.append(r.returncode)
            failed = sorted({ln.split(": error: ")[0].strip() for ln in r.stdout.splitlines() if ": error: " in ln})
            if r.returncode == 1 and failed:  # some files not converted (a syntax error in the repository's own
                # code): the rest was written and the models that never import those files can still run
                partial.append(f"{folder}: {len(failed)} file(s) not converted: "
                               + ", ".join(os.path.relpath(f.rsplit(":", 1)[0], os.path.join(src, folder))
                                           for f in failed))
            elif r.returncode not in (0, 3):
                errors.append(f"{folder}: {_last(r.stderr) or f'exit {r.returncode}'}")
            summaries.append(_last(r.stdout))
        except subprocess.TimeoutExpired:
            rcs.append(-1)
            errors.append(f"{folder}: timed out after {timeout} s")
        written = [target] if target.endswith(".py") and os.path.isfile(target) else list(_py_files(target))
        files += len(written)
        markers += sum(_markers(p) for p in written)
    ok = not errors and files > 0
    return {"package": repo.key, "rc": max(rcs, key=abs) if rcs else -1, "ok": ok,
            "seconds": round(time.perf_counter() - t0, 1), "files": files, "markers": markers,
            "error": "; ".join(errors + partial) or (None if ok else "nothing written"),
            "summary": "; ".join(summaries)}


def _py_files(d):
    for dirpath, _, names in os.walk(d):
        for n in names:
            if n.endswith(".py"):
                yield os.path.join(dirpath, n)


def _markers(path) -> int:
    try:
        with open(path, encoding="utf-8") as f:
            return sum(1 for line in f if line.lstrip().startswith(MARKER))
    except OSError:
        return 0


def _last(text: str) -> str:
    lines = [ln.strip() for ln in (text or "").strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


# ------------------------------------------------------------------------------ one model (in a subprocess)
SEED_ENV = "REAL_MODELS_SEED"  # --seed, passed to the worker processes through their environment
_ACTIVE_CORPUS = CORPUS  # the corpus of the model being run (errors name their file relative to it)


class StageError(Exception):
    def __init__(self, stage, exc_or_text):
        self.stage = stage
        self.text = exc_or_text if isinstance(exc_or_text, str) else _describe(exc_or_text)
        super().__init__(f"{stage}: {self.text}")


def _describe(exc: BaseException) -> str:
    """``Type: first line (at ms/timm/layers/x.py:12)``: the innermost frame inside the corpus, if any."""
    first = next((ln.strip() for ln in str(exc).strip().splitlines() if ln.strip().strip("-=*# ")), "")
    where = ""
    corpus = os.path.abspath(_ACTIVE_CORPUS)
    for fr in reversed(traceback.extract_tb(exc.__traceback__)):
        if os.path.abspath(fr.filename).startswith(corpus + os.sep):
            where = f" (at {os.path.relpath(fr.filename, corpus)}:{fr.lineno})"
            break
    return f"{type(exc).__name__}: {first[:240]}{where}"


def _stub_meta_registrations():
    import types

    sys.modules["torchvision._meta_registrations"] = types.ModuleType("torchvision._meta_registrations")


def _purge():
    for name in list(sys.modules):
        if name.split(".")[0] in PACKAGES:
            del sys.modules[name]


def _research_dirs(corpus: str, case: Case, side: str) -> tuple:
    """(the checkout or its conversion, the sys.path root inside it) of a research case."""
    base = os.path.join(corpus, "research", "src" if side == "torch" else "ms", REPOS[case.repo].key)
    return base, os.path.join(base, REPOS[case.repo].root)


def _purge_research(corpus: str):
    """Forget every module loaded from the research checkouts or conversions (each side its own namespace)."""
    top = os.path.join(os.path.abspath(corpus), "research") + os.sep
    doomed = []
    for name, mod in list(sys.modules.items()):  # all looked at first: a namespace package's path needs its parent
        paths = [getattr(mod, "__file__", None) or ""]
        try:
            paths += [p for p in getattr(mod, "__path__", None) or [] if isinstance(p, str)]
        except Exception:  # noqa: BLE001 - a module object may answer __path__ with anything (torch._classes)
            pass
        if any(isinstance(p, str) and p.startswith(top) for p in paths):
            doomed.append(name)
    for name in doomed:
        del sys.modules[name]


class _Anything:
    """What a stubbed module hands out: any attribute, call, iteration or base class works and does nothing."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything(f"{self._name}.{name}")

    def __call__(self, *args, **kwargs):
        return _Anything(f"{self._name}()")

    def __iter__(self):
        return iter(())

    def __mro_entries__(self, bases):
        return (object,)

    def __repr__(self):
        return f"<stub {self._name}>"


class _StubFinder:
    """A sys.meta_path finder answering the named top-level modules (and their submodules) with stubs (Repo.shims)."""

    def __init__(self, names):
        self.names = set(names)

    def find_spec(self, fullname, path, target=None):
        import importlib.util

        if fullname.split(".")[0] in self.names:
            return importlib.util.spec_from_loader(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        import types

        class _StubModule(types.ModuleType):
            def __getattr__(self, name):
                if name.startswith("__"):
                    raise AttributeError(name)
                return _Anything(f"{self.__name__}.{name}")

        mod = _StubModule(spec.name)
        mod.__path__ = []
        mod.__msmigrate_stub__ = True
        return mod

    def exec_module(self, module):
        pass


def _install_shims(names) -> None:
    """Only ``names`` stubbed from now on: the stubs of an earlier case are forgotten."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _StubFinder)]
    for name, mod in list(sys.modules.items()):
        if getattr(mod, "__msmigrate_stub__", False):
            del sys.modules[name]
    if names:
        sys.meta_path.insert(0, _StubFinder(names))


def _home(corpus: str, repo: Repo) -> str | None:
    """A HOME holding copies of the checkout's files the repository reads from $HOME (Repo.home), or None."""
    if not repo.home:
        return None
    home = os.path.join(os.path.abspath(corpus), "research", "home", repo.key)
    for dest, src in repo.home.items():
        target = os.path.join(home, dest)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(corpus, "research", "src", repo.key, src), target)
    return home


def _build(case: Case, corpus: str, side: str):
    import importlib

    _purge()
    home = None
    if case.repo:
        _purge_research(corpus)
        _install_shims(REPOS[case.repo].shims)
        home = _home(corpus, REPOS[case.repo])
        root = _research_dirs(corpus, case, side)[1]
        top = os.path.join(os.path.abspath(corpus), "research") + os.sep
        sys.path[:] = [d for d in sys.path if not os.path.abspath(d or ".").startswith(top)]
        importlib.invalidate_caches()
    else:
        root = os.path.join(corpus, "site" if side == "torch" else "ms")
        for d in (os.path.join(corpus, "site"), os.path.join(corpus, "ms")):
            while d in sys.path:
                sys.path.remove(d)
    sys.path.insert(0, root)
    deps = os.path.join(corpus, "deps")
    if deps not in sys.path:
        sys.path.insert(1, deps)
    if case.repo:
        shims = write_shims(corpus)
        if shims not in sys.path:
            sys.path.insert(sys.path.index(deps) + 1, shims)
    _stub_meta_registrations()
    stage = f"import-{side}"
    cwd, old_home = os.getcwd(), os.environ.get("HOME")
    try:
        if case.repo:
            os.chdir(_research_dirs(corpus, case, side)[0])  # repos read files relative to their root
        if home:
            os.environ["HOME"] = home
        module = importlib.import_module(case.module)
        stage = f"build-{side}"
        if case.entry:  # M: the module; imp(name): another module of the repository; pair(...): _composer
            model = eval(case.entry, {"M": module, "imp": importlib.import_module,  # noqa: S307 - our own table
                                      "pair": _composer(side)})
        else:
            factory = getattr(module, case.factory)
            model = factory(*case.args, **case.kwargs)
    except Exception as exc:  # noqa: BLE001 - real code raises anything
        raise StageError(stage, exc) from None
    finally:
        os.chdir(cwd)
        if home:
            if old_home is None:
                os.environ.pop("HOME", None)
            else:
                os.environ["HOME"] = old_home
    return model


# ------------------------------------------------------------------------------ inputs: arrays, token ids, lists, values
class _Value:
    """A plain Python argument of the forward call (``step=2``): passed as it is on both sides."""

    def __init__(self, v):
        self.v = v


def _make_input(spec, rng):
    """One argument from its spec: a shape (float32 normal), ``ids(...)`` (int64 in [low, high)), ``tensors(...)`` (a
    list of float tensors), ``value(v)`` (a Python value)."""
    import numpy as np

    if isinstance(spec, dict):
        if "ints" in spec:
            return rng.integers(spec["low"], spec["high"], size=tuple(spec["ints"])).astype(np.int64)
        if "list" in spec:
            return [_make_input(s, rng) for s in spec["list"]]
        if "value" in spec:
            return _Value(spec["value"])
        if "const" in spec:
            return np.asarray(spec["const"], np.float32)
        raise ValueError(f"unknown input spec {spec!r}")
    return rng.standard_normal(tuple(spec)).astype(np.float32)


def _leaves(args, kwargs) -> list:
    """The arrays of a call's arguments, in order (what parity feeds and compares)."""
    out = []

    def walk(a):
        if isinstance(a, list):
            for b in a:
                walk(b)
        elif not isinstance(a, _Value):
            out.append(a)

    for a in list(args) + list(kwargs.values()):
        walk(a)
    return out


def _rebuild(args, kwargs, flat):
    """The call's arguments with each array replaced by the next of ``flat`` (tensors of one framework)."""
    it = iter(flat)

    def put(a):
        if isinstance(a, list):
            return [put(b) for b in a]
        if isinstance(a, _Value):
            return a.v
        return next(it)

    return [put(a) for a in args], {k: put(v) for k, v in kwargs.items()}


def _bind(model, args, kwargs, side: str):
    """``model`` called as ``model(*args, **kwargs)`` from the flat tensors parity feeds: a container whose one child
    is the model (its parameters then all start with ``model.``, on both sides alike)."""
    if side == "torch":
        import torch

        class Bound(torch.nn.Module):
            def __init__(self, m):
                super().__init__()
                self.model = m

            def forward(self, *flat):
                a, k = _rebuild(args, kwargs, flat)
                return self.model(*a, **k)
    else:
        import mindspore as ms

        class Bound(ms.nn.Cell):
            def __init__(self, m):
                super().__init__()
                self.model = m

            def construct(self, *flat):
                a, k = _rebuild(args, kwargs, flat)
                return self.model(*a, **k)
    return Bound(model)


def _composer(side: str):
    """``pair(call, **children)``: a module of ``side``'s framework holding ``children`` whose forward is
    ``call(self, *inputs)`` (a model the repository runs as two parts, ``dec(enc(x), ...)``)."""
    def pair(call, **children):
        if side == "torch":
            import torch
            base, method = torch.nn.Module, "forward"
        else:
            import mindspore
            base, method = mindspore.nn.Cell, "construct"
        model = type("Composed", (base,), {method: lambda self, *xs: call(self, *xs)})()
        for name, child in children.items():
            setattr(model, name, child)
        return model
    return pair


def _source_files(torch_model, corpus: str, case: Case | None = None) -> list:
    """Converted files holding the classes the model is made of (relative to ms/)."""
    site = _research_dirs(corpus, case, "torch")[0] if case is not None and case.repo else \
        os.path.join(corpus, "site")
    files = set()
    for m in torch_model.modules():
        mod = sys.modules.get(type(m).__module__)
        path = getattr(mod, "__file__", None) or ""
        if path.startswith(site + os.sep):
            files.add(os.path.relpath(path, site))
    return sorted(files)


def run_case(case: Case, corpus: str = CORPUS) -> dict:
    """Build both sides, copy weights, compare. Returns the row (never raises)."""
    import numpy as np

    global _ACTIVE_CORPUS
    _ACTIVE_CORPUS = corpus
    row = {"id": case.id, "builds": False, "passed": False, "stage": None, "error": None, "markers": None,
           "files": [], "first_divergence": None, "worst": None, "seconds": None}
    t0 = time.perf_counter()
    try:
        from migrate.runtime import prepare_mindspore_env

        prepare_mindspore_env()
        import torch

        seed = int(os.environ.get(SEED_ENV, "0"))  # --seed: the workers inherit it
        torch.manual_seed(seed)
        tm = _build(case, corpus, "torch")
        row["files"] = _source_files(tm, corpus, case)
        ms_dir = _research_dirs(corpus, case, "ms")[0] if case.repo else os.path.join(corpus, "ms")
        row["markers"] = sum(_markers(os.path.join(ms_dir, f)) for f in row["files"])
        rng = np.random.default_rng(seed)
        args = [_make_input(s, rng) for s in (case.inputs or [list(case.input)])]
        kw = {k: _make_input(v, rng) for k, v in case.call_kwargs.items()}
        xs = _leaves(args, kw)
        x = xs if len(args) > 1 or case.inputs else xs[0]
        plain = not kw and all(isinstance(a, np.ndarray) for a in args)  # else parity calls a _bind container
        t_call = tm if plain else _bind(tm, args, kw, "torch")
        try:
            tm.train()
            with torch.no_grad():
                t_call(*[torch.from_numpy(a) for a in xs])
        except Exception as exc:  # noqa: BLE001
            raise StageError("run-torch", exc) from None
        import mindspore as ms

        ms.set_seed(seed)
        mm = _build(case, corpus, "ms")
        if not isinstance(mm, ms.nn.Cell):
            raise StageError("build-ms", f"the converted factory returned a {type(mm).__module__}."
                                         f"{type(mm).__name__}, not a mindspore.nn.Cell")
        row["builds"] = True
        try:
            _copy_weights(tm, mm)
        except Exception as exc:  # noqa: BLE001
            raise StageError("weights", exc) from None
        from migrate.parity import compare

        try:
            report = compare(t_call, mm if plain else _bind(mm, args, kw, "ms"), x)
        except Exception as exc:  # noqa: BLE001
            raise StageError("parity", exc) from None
        d = report.to_dict()
        row["passed"] = bool(report.passed)
        fd = {k: v for k, v in (d.get("first_divergence") or {}).items() if v is not None}
        row["first_divergence"] = fd or None
        bad = [r for r in d.get("layers", []) if not r.get("passed")]
        if bad:
            r = bad[0]
            row["worst"] = {"layer": r.get("name"), "type": r.get("type"), "scaled_err": r.get("scaled_err"),
                            "note": r.get("note")}
        if d.get("error"):
            row["stage"], row["error"] = "parity", str(d["error"]).splitlines()[0][:300]
        elif not report.passed:
            row["stage"] = "parity-forward" if fd.get("forward") else "parity-backward"
            where = fd.get("forward") or fd.get("backward") or fd.get("backward_param")
            extra = ""
            if row["worst"] and row["worst"].get("note"):
                extra = f": {row['worst']['note']}"
            elif row["worst"] and row["worst"].get("scaled_err") is not None:
                extra = f": scaled error {_fmt(row['worst']['scaled_err'])}"
            row["error"] = f"first divergence at {where}{extra}"
    except StageError as exc:
        row["stage"], row["error"] = exc.stage, exc.text
    except Exception as exc:  # noqa: BLE001 - the benchmark's own fault, still one row
        row["stage"], row["error"] = "harness", _describe(exc)
    row["seconds"] = round(time.perf_counter() - t0, 1)
    return row


def _copy_weights(tm, mm) -> None:
    """torch -> MindSpore as ``msmigrate parity`` copies them: every torch parameter must have a MindSpore home and
    every trainable MindSpore parameter a torch tensor; a torch buffer the port holds as a constant (swin's
    relative_position_index) is left to the forward comparison, which shows its layer if it differs."""
    from migrate.weights import WeightsError, map_from_ms_net, torch_to_mindspore

    state = {k: v.detach() for k, v in tm.state_dict().items()}  # no copy: shared modules stay shared
    used = torch_to_mindspore(state, mm, strict=False)
    params = {n for n, _ in tm.named_parameters()}
    lost = [k for k in state if k not in used and k in params]
    if lost:
        raise WeightsError(f"{len(lost)} torch parameter(s) have no MindSpore parameter: {', '.join(lost[:6])}")
    ms_params = dict(mm.parameters_and_names())
    missing = [e.ms_name for e in map_from_ms_net(mm).entries
               if e.torch_name not in state and ms_params[e.ms_name].requires_grad]
    if missing:
        raise WeightsError(f"the state_dict lacks {len(missing)} tensor(s) the MindSpore network trains: "
                           f"{', '.join(missing[:6])}")


def _fmt(v) -> str:
    if isinstance(v, (int, float)):
        return f"{v:.2g}"
    return str(v)


def _worker_main(spec: str, corpus: str) -> None:
    case = Case(**json.loads(spec))
    case.input = tuple(case.input)
    row = run_case(case, corpus)
    sys.stdout.flush()
    print("\n@@ROW@@" + json.dumps(row, default=str), flush=True)
    os._exit(0)  # MindSpore's atexit handlers can hang on a half-built graph


def _worker_batch(path: str, corpus: str) -> None:
    """Run the cases listed in the JSON file ``path`` one after the other in this process (torch, MindSpore and
    the packages are imported once): ``@@START@@ id`` before each, ``@@ROW@@ json`` after."""
    with open(path) as f:
        specs = json.load(f)
    for spec in specs:
        case = Case(**spec)
        case.input = tuple(case.input)
        print("\n@@START@@" + case.id, flush=True)
        row = run_case(case, corpus)
        sys.stdout.flush()
        print("\n@@ROW@@" + json.dumps(row, default=str), flush=True)
    os._exit(0)  # MindSpore's atexit handlers can hang on a half-built graph


def _failed_row(case: Case, stage: str, error: str, seconds: float) -> dict:
    return {"id": case.id, "builds": False, "passed": False, "stage": stage, "error": error, "markers": None,
            "files": [], "first_divergence": None, "worst": None, "seconds": round(seconds, 1)}


def run_batch(cases: list, corpus: str = CORPUS, timeout: int = 600, on_start=None, on_row=None) -> list:
    """Run ``cases`` in worker processes that each import the frameworks once and take case after case. A case
    that crashes its worker or runs past ``timeout`` seconds gets that row; a new worker takes the rest."""
    import queue
    import tempfile
    import threading

    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), GLOG_v="3")
    if any(c.repo for c in cases):  # generated *_pb2 modules of old protobuf releases (pytorch-semseg's caffe_pb2)
        env.setdefault("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", "python")  # import only with the Python backend
    rows, todo = [], list(cases)
    while todo:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump([asdict(c) for c in todo], f)
        cmd = [sys.executable, os.path.abspath(__file__), "--worker-batch", f.name, "--corpus", corpus]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        lines: queue.Queue = queue.Queue()
        err_tail: list = []
        threading.Thread(target=lambda: [lines.put(ln) for ln in proc.stdout] + [lines.put(None)], daemon=True).start()
        threading.Thread(target=lambda: [err_tail.append(ln) or err_tail.__delitem__(slice(0, -20))
                                         for ln in proc.stderr], daemon=True).start()
        current, t0, started = None, time.perf_counter(), time.perf_counter()
        while todo:
            left = timeout - (time.perf_counter() - started) if current else timeout * 2  # imports come first
            try:
                line = lines.get(timeout=max(1.0, left))
            except queue.Empty:
                proc.kill()
                case = current or todo[0]
                rows.append(_failed_row(case, "timeout", f"no result after {timeout} s", time.perf_counter() - t0))
                todo.remove(case)
                if on_row:
                    on_row(rows[-1])
                break
            if line is None:  # the worker died
                proc.wait()
                case = current or todo[0]
                rows.append(_failed_row(case, "crash", f"worker exited {proc.returncode}: "
                                        f"{_last(''.join(err_tail))}", time.perf_counter() - t0))
                todo.remove(case)
                if on_row:
                    on_row(rows[-1])
                break
            if line.startswith("@@START@@"):
                current = next(c for c in todo if c.id == line[len("@@START@@"):].strip())
                started = t0 = time.perf_counter()
                if on_start:
                    on_start(current)
            elif line.startswith("@@ROW@@"):
                rows.append(json.loads(line[len("@@ROW@@"):]))
                todo = [c for c in todo if c.id != rows[-1]["id"]]
                current = None
                if on_row:
                    on_row(rows[-1])
        if proc.poll() is None and not todo:
            proc.wait(timeout=60)
        os.unlink(f.name)
    return rows


def run_in_subprocess(case: Case, corpus: str = CORPUS, timeout: int = 600) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), GLOG_v="3")
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", json.dumps(asdict(case)), "--corpus", corpus]
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"id": case.id, "builds": False, "passed": False, "stage": "timeout",
                "error": f"no result after {timeout} s", "markers": None, "files": [], "first_divergence": None,
                "worst": None, "seconds": round(time.perf_counter() - t0, 1)}
    for line in reversed(r.stdout.splitlines()):
        if line.startswith("@@ROW@@"):
            return json.loads(line[len("@@ROW@@"):])
    return {"id": case.id, "builds": False, "passed": False, "stage": "crash",
            "error": f"worker exited {r.returncode}: {_last(r.stderr) or _last(r.stdout)}", "markers": None,
            "files": [], "first_divergence": None, "worst": None, "seconds": round(time.perf_counter() - t0, 1)}


# ------------------------------------------------------------------------------ the table
class Progress:
    """One line on stderr, redrawn: [#####.....] 12/96 timm/resnet18 ok 12.3s  (passed 7, built 9)."""

    def __init__(self, total: int, stream=sys.stderr, width: int = 30):
        self.total, self.stream, self.width, self.done, self.passed, self.built = total, stream, width, 0, 0, 0
        self.tty = hasattr(stream, "isatty") and stream.isatty()

    def start(self, label: str):
        self._draw(f"{label} ...")

    def finish(self, row: dict):
        self.done += 1
        self.passed += bool(row["passed"])
        self.built += bool(row["builds"])
        verdict = "pass" if row["passed"] else f"FAIL {row['stage']}"
        self._draw(f"{row['id']} {verdict} {row['seconds']}s", final=True)

    def _draw(self, text: str, final: bool = False):
        filled = int(self.width * self.done / max(1, self.total))
        bar = "#" * filled + "." * (self.width - filled)
        line = f"[{bar}] {self.done}/{self.total} passed {self.passed} built {self.built} | {text}"
        if self.tty:
            self.stream.write("\r\x1b[K" + line[:160] + ("\n" if final and self.done == self.total else ""))
        elif final:
            self.stream.write(line + "\n")
        self.stream.flush()


def _md_cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(rows: list, conversions: list, versions: dict, total_seconds: float, note: str = "") -> str:
    n = len(rows)
    passed = sum(r["passed"] for r in rows)
    built = sum(r["builds"] for r in rows)
    by_pkg = {}
    for r in rows:
        p = by_pkg.setdefault(r["id"].split("/")[0], [0, 0, 0])
        p[0] += 1
        p[1] += r["builds"]
        p[2] += r["passed"]
    stages = {}
    for r in rows:
        if not r["passed"]:
            stages[r["stage"]] = stages.get(r["stage"], 0) + 1
    out = ["# Real models, ported with no hand edit", "",
           "Generated by `benchmarks/real_models.py` (do not edit by hand). Each package is converted with "
           "`msmigrate convert`; each model is built in torch from the original sources and in MindSpore from the "
           "converted ones, its weights are copied with `migrate.weights`, and `migrate.parity.compare` runs "
           "forward and backward on a random input (train mode, dropout and drop-path / stochastic depth disabled, "
           "the sum of the outputs as the loss). Nothing is edited by hand.", "",
           f"Corpus: {', '.join(f'{k} {v}' for k, v in versions.items())}; torch 2.13.0, MindSpore 2.10.0, CPU. "
           + (note or f"Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {total_seconds / 60:.1f} min."),
           "",
           f"**{passed} / {n} models pass parity ({100 * passed / max(1, n):.0f}%); {built} / {n} build in "
           f"MindSpore ({100 * built / max(1, n):.0f}%).**", "",
           "| package | models | build | pass parity |", "|---|---:|---:|---:|"]
    for p, (k, b, ok) in by_pkg.items():
        out.append(f"| {p} | {k} | {b} | {ok} |")
    out += ["", "## Conversion", "", "| package | files | markers left | seconds | result |", "|---|---:|---:|---:|---|"]
    for c in conversions:
        res = "ok" if c["ok"] else _md_cell(f"FAILED (exit {c['rc']}): {c['error']}")
        out.append(f"| {c['package']} | {c['files']} | {c['markers'] if c['markers'] is not None else '-'} | "
                   f"{c['seconds']} | {res} |")
    if stages:
        out += ["", "## Where the failures stop", "", "| stage | models |", "|---|---:|"]
        for s, k in sorted(stages.items(), key=lambda kv: -kv[1]):
            out.append(f"| {s} | {k} |")
        out += ["", "Stages: `convert` (the CLI failed on the package), `import-torch` / `build-torch` / "
                "`run-torch` (the original model; a corpus problem, not a port problem), `import-ms` (importing "
                "the converted package), `build-ms` (calling the converted factory), `weights` (copying the "
                "state_dict), `parity` (MindSpore raised while running), `parity-forward` / `parity-backward` "
                "(ran, numbers differ), `timeout`, `crash` (the worker died)."]
    out += ["", "## Models", "",
            "Markers left: `# msmigrate: unsupported` lines in the converted files that define the model's "
            "classes. First divergence: the first layer whose forward output (or, failing that, input "
            "gradient / parameter gradient) differs.", "",
            "| model | markers left | builds | parity | first divergence | seconds | reason |",
            "|---|---:|---|---|---|---:|---|"]
    for r in rows:
        fd = r.get("first_divergence") or {}
        fdt = "; ".join(f"{k}: {v}" for k, v in fd.items()) or "-"
        verdict = "pass" if r["passed"] else ("fail" if r["builds"] else "-")
        reason = "" if r["passed"] else f"{r['stage']}: {r['error']}"
        out.append(f"| {r['id']} | {r['markers'] if r['markers'] is not None else '-'} | "
                   f"{'yes' if r['builds'] else 'no'} | {verdict} | {_md_cell(fdt)} | {r['seconds']} | "
                   f"{_md_cell(reason)} |")
    return "\n".join(out) + "\n"


RESEARCH_HEAD = "## Research repositories"


def silent(row: dict) -> bool:
    """A failure with no marker in the converted files the model is made of: convert said nothing."""
    return not row["passed"] and not row.get("markers") and row["stage"] not in (
        "fetch", "harness", "import-torch", "build-torch", "run-torch")


def render_research(rows: list, conversions: list, total_seconds: float, note: str = "") -> str:
    n = len(rows)
    passed, built = sum(r["passed"] for r in rows), sum(r["builds"] for r in rows)
    crack = [r for r in rows if REPOS.get(r["id"].split("/")[1], Repo("", "", "", [])).crack]
    quiet = [r for r in rows if silent(r)]
    out = [RESEARCH_HEAD, "",
           "Generated by `benchmarks/real_models.py --research` (do not edit by hand). Models from public research "
           "repositories no one here wrote (`../shared/corpus/research_repos.md`), each checked out at its pinned "
           "commit from a local git mirror (`--mirror DIR`); each repository's model folders are converted with "
           "`msmigrate convert FOLDER` (one project per folder, the rest of the checkout copied unchanged), then "
           "built, weights copied and parity run as above. Never a pretrained flag; nothing is edited by hand. "
           "A *silent* failure is one whose converted files carry no `# msmigrate: unsupported` marker.", "",
           note or f"Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {total_seconds / 60:.1f} min.", "",
           f"**{passed} / {n} research models pass parity; {built} / {n} build in MindSpore; {len(quiet)} silent "
           f"failure(s). Crack / defect models: {sum(r['passed'] for r in crack)} / {len(crack)} pass.**", "",
           "| repository | commit | converted | files | markers left | seconds | result |",
           "|---|---|---|---:|---:|---:|---|"]
    for c in conversions:
        repo = REPOS.get(c["package"])
        res = _md_cell(("ok" + (f" ({c['error']})" if c.get("error") else "")) if c["ok"] else
                       f"FAILED: {c['error']}")
        out.append(f"| {repo.github if repo else c['package']} | {repo.commit if repo else '-'} | "
                   f"{_md_cell(', '.join(repo.folders)) if repo else '-'} | {c['files']} | "
                   f"{c['markers'] if c['markers'] is not None else '-'} | {c['seconds']} | {res} |")
    out += ["", "| model | markers left | verdict | first cause | seconds |", "|---|---:|---|---|---:|"]
    for r in rows:
        verdict = "pass" if r["passed"] else ("silent fail" if silent(r) else "fail") + f" ({r['stage']})"
        out.append(f"| {r['id']} | {r['markers'] if r['markers'] is not None else '-'} | {verdict} | "
                   f"{_md_cell('' if r['passed'] else r['error'] or '')} | {r['seconds']} |")
    return "\n".join(out) + "\n"


def splice(doc: str, library: str | None = None, research: str | None = None) -> str:
    """docs/real_models.md holds two tables: the library corpus, then the research section; regenerating one
    keeps the other."""
    head, mark, tail = doc.partition("\n" + RESEARCH_HEAD)
    old_research = (mark.lstrip("\n") + tail) if mark else ""
    lib = library if library is not None else head.rstrip("\n") + "\n"
    res = research if research is not None else old_research
    return lib + ("\n" + res if res else "")


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return ""


def _write_atomic(path: str, text: str) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def select(only: list | None) -> list:
    if not only:
        return list(CASES)
    return [c for c in CASES if any(o in c.id for o in only)]


_SHORT = {"segmentation_models_pytorch": "smp"}  # package -> the prefix of its model ids


def _cells(line: str) -> list:
    """The cells of one markdown table row (``\\|`` inside a cell is a pipe)."""
    parts = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    return [c.strip().replace("\\|", "|") for c in parts]


def table_run(path: str) -> dict:
    """A table this benchmark wrote (``docs/real_models.md``), read back as a run for ``merge``: each model's row
    as the table shows it (markers, builds, verdict, first divergence, seconds, stage and reason; no per-layer
    detail), each package's conversion, and the table's own note on where it came from. So a partial run can be
    merged into the table it updates when the earlier runs' JSON files are gone."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    rows, conversions, versions, note = [], [], {}, ""
    section = None
    for line in lines:
        if line.startswith("Corpus: "):
            head, _, note = line.partition(". ")
            for item in head[len("Corpus: "):].split(";")[0].split(", "):
                name, _, version = item.partition(" ")
                versions[name] = version
        elif line.startswith("## "):
            section = line[3:].strip()
        elif line.startswith("| ") and not line.startswith("|---"):
            c = _cells(line)
            if section == "Conversion" and c[0] != "package":
                conversions.append({"package": c[0], "rc": 0 if c[4] == "ok" else 1, "ok": c[4] == "ok",
                                    "seconds": float(c[3]), "files": int(c[1]),
                                    "markers": None if c[2] == "-" else int(c[2]),
                                    "error": None if c[4] == "ok" else c[4], "summary": ""})
            elif section == "Models" and c[0] != "model":
                stage, _, error = c[6].partition(": ")
                fd = dict(part.split(": ", 1) for part in c[4].split("; ")) if c[4] != "-" else None
                rows.append({"id": c[0], "markers": None if c[1] == "-" else int(c[1]), "builds": c[2] == "yes",
                             "passed": c[3] == "pass", "first_divergence": fd, "worst": None, "files": [],
                             "seconds": float(c[5]), "stage": stage or None, "error": error or None})
    when = f"the earlier table {os.path.basename(path)} ({note.rstrip('.')})" if note else \
        f"the earlier table {os.path.basename(path)}"
    return {"rows": rows, "conversions": conversions, "versions": versions, "run": when}


def merge(paths: list, out: str) -> int:
    """One table from several partial runs (``--only torchvision/`` here, ``--only timm/ --only smp/`` there): for
    each package, the rows and the conversion of the last run in ``paths`` whose conversion of it succeeded. A
    path ending in ``.md`` is a table this benchmark wrote (``table_run``): list it first, the runs that update it
    after."""
    runs = []
    for path in paths:
        if path.endswith(".md"):
            runs.append(table_run(path))
            continue
        with open(path) as f:
            runs.append(json.load(f))
    by_id, origin, conversions, versions, sources = {}, {}, {}, {}, []
    for i, (path, run) in enumerate(zip(paths, runs)):
        ok = {c["package"] for c in run["conversions"] if c["ok"]}
        taken = []
        for row in run["rows"]:
            module = next(c.module for c in CASES if c.id == row["id"])
            if all(p in ok for p in DEPENDS.get(module.split(".")[0], [])):
                by_id[row["id"]], origin[row["id"]] = row, i
                taken.append(row["id"])
        pkgs = sorted({t.split("/")[0] for t in taken})
        for c in run["conversions"]:  # each package's conversion from the run its rows come from
            if c["ok"] and _SHORT.get(c["package"], c["package"]) in pkgs:
                conversions[c["package"]] = c
        versions.update(run.get("versions", {}))
    for i, (path, run) in enumerate(zip(paths, runs)):  # each source with the rows the table keeps from it
        kept = [k for k, v in origin.items() if v == i]
        if kept:
            when = run.get("run") or time.strftime("a run that ended %Y-%m-%d %H:%M UTC",
                                                   time.gmtime(os.path.getmtime(path)))
            pkgs = sorted({t.split("/")[0] for t in kept})
            sources.append(f"{len(kept)} model(s) ({', '.join(pkgs)}) from {when}")
    rows = [by_id[c.id] for c in CASES if c.id in by_id]
    missing = [c.id for c in CASES if c.id not in by_id]
    note = "Merged from partial runs: " + "; ".join(sources) + "." + (
        f" Not run (no row in these runs): {len(missing)} models: {', '.join(missing)}." if missing else "")
    text = render(rows, [conversions[p] for p in PACKAGES if p in conversions], versions,
                  sum(r["seconds"] or 0 for r in rows), note)
    _write_atomic(out, splice(_read(out), library=text))
    print(f"{sum(r['passed'] for r in rows)}/{len(rows)} pass parity; table: {out}")
    return 0


def research_table_run(path: str) -> dict:
    """The research section of a table this benchmark wrote (``render_research``), read back: each model's row as
    the table shows it (markers, verdict and stage, first cause, seconds; built = passed or stopped at weights /
    parity, the stages after the MindSpore build) and each repository's conversion. So ``--only`` updates its rows
    of the table when the earlier runs' JSON is gone (another checkout, a fresh corpus folder)."""
    rows, conversions = [], []
    by_github = {r.github: r.key for r in REPOS.values()}
    _, mark, tail = _read(path).partition("\n" + RESEARCH_HEAD)
    when = f"the earlier table {os.path.basename(path)}"
    for line in (tail if mark else "").splitlines():
        if line.startswith("## "):
            break
        m = re.match(r"(?:Merged from \d+ run\(s\): (.*?)\. \d+ of the|Run: (.*?)\.$)", line)
        if m:
            when += f" ({m.group(1) or m.group(2)})"
        if not line.startswith("| ") or line.startswith("|---"):
            continue
        c = _cells(line)
        if len(c) == 7 and c[0] in by_github:
            ok = c[6].startswith("ok")
            conversions.append({"package": by_github[c[0]], "rc": 0 if ok else 1, "ok": ok,
                                "seconds": float(c[5]), "files": int(c[3]),
                                "markers": None if c[4] == "-" else int(c[4]),
                                "error": (c[6][4:-1] or None) if ok else c[6].partition(": ")[2], "summary": ""})
        elif len(c) == 5 and c[0].startswith("research/"):
            verdict, _, stage = c[2].partition(" (")
            stage = stage.rstrip(")") or None
            passed = verdict == "pass"
            rows.append({"id": c[0], "markers": None if c[1] == "-" else int(c[1]), "passed": passed,
                         "builds": passed or stage in ("weights", "parity", "parity-forward", "parity-backward"),
                         "stage": stage, "error": c[3] or None, "first_divergence": None, "worst": None,
                         "files": [], "seconds": float(c[4]) if c[4] not in ("", "None") else None,
                         "run": when})
    return {"rows": rows, "conversions": conversions}


def merge_research(paths: list, out: str) -> int:
    """``--research --merge A.md B.json ...``: the research section of ``out`` from earlier runs, without running:
    each model's row and each repository's conversion from the last path that has it (a ``.md`` path is a table
    this benchmark wrote, read back; a ``.json`` one a run's research_models.json)."""
    rows, conversions, sources = {}, {}, []
    for path in paths:
        run = research_table_run(path) if path.endswith(".md") else json.load(open(path, encoding="utf-8"))
        rows.update({r["id"]: r for r in run.get("rows", [])})
        conversions.update({c["package"]: c for c in run.get("conversions", [])})
    kept = [rows[c.id] for c in RESEARCH if c.id in rows]
    keys = list(dict.fromkeys(c.repo for c in RESEARCH if c.id in rows))
    runs = sorted({r.get("run") or "an earlier run" for r in kept})
    note = (f"Merged from {len(runs)} run(s): {'; '.join(runs)}. {len(kept)} of the {len(RESEARCH)} research models "
            "have a row.")
    _write_atomic(out, splice(_read(out), research=render_research(kept, [conversions[k] for k in keys
                                                                          if k in conversions], 0, note)))
    print(f"{sum(r['passed'] for r in kept)}/{len(kept)} research models pass parity; table: {out}")
    return 0


def select_research(only: list | None) -> list:
    return [c for c in RESEARCH if not only or any(o in c.id for o in only)]


def _list_or_none(cases: list, listing: bool, what: str) -> int | None:
    """--list prints the selected ids (exit 0); an --only that selects nothing is a usage error (2); else None."""
    if listing:
        for c in cases:
            print(c.id)
        return 0
    if not cases:
        print(f"no {what} matches --only", file=sys.stderr)
        return 2
    return None


def main_research(a) -> int:
    cases = select_research(a.only)
    done = _list_or_none(cases, a.list, "research model")
    if done is not None:
        return done
    t0 = time.perf_counter()
    try:
        research_deps(a.corpus, log=lambda s: print(s, file=sys.stderr))
    except (FetchError, subprocess.TimeoutExpired) as exc:
        print(f"real_models: cannot install the research models' dependencies: {exc}", file=sys.stderr)
        return 1
    keys = list(dict.fromkeys(c.repo for c in cases))
    rows, conversions, runnable = {}, [], []
    conv_path = os.path.join(a.corpus, "research", "ms", "conversions.json")
    old = {}
    if a.skip_convert and os.path.exists(conv_path):
        with open(conv_path) as f:
            old = {c["package"]: c for c in json.load(f)}
    bad = {}
    for key in keys:
        why = checkout(REPOS[key], a.mirror, a.corpus)
        if why:
            print(f"real_models: {why}", file=sys.stderr)
            bad[key] = ("fetch", why)
            continue
        if key in old:
            c = old[key]
        else:
            print(f"converting {REPOS[key].github} ({', '.join(REPOS[key].folders)}) ...", file=sys.stderr, flush=True)
            c = convert_repo(REPOS[key], a.corpus)
            print(f"  {key}: {c['files']} files, {c['markers']} markers, {c['seconds']} s"
                  + ("" if c["ok"] else f", FAILED: {c['error']}"), file=sys.stderr, flush=True)
        conversions.append(c)
        if not c["ok"]:
            bad[key] = ("convert", c["error"])
    os.makedirs(os.path.dirname(conv_path), exist_ok=True)
    _write_atomic(conv_path, json.dumps(list({**old, **{c["package"]: c for c in conversions}}.values()), indent=1))
    bar = Progress(len(cases))
    for case in cases:
        if case.repo in bad:
            rows[case.id] = _failed_row(case, *bad[case.repo], 0.0)
            bar.finish(rows[case.id])
        else:
            runnable.append(case)
    json_path = a.json or os.path.join(a.corpus, "research", "research_models.json")
    earlier, earlier_conv = {}, {}
    if a.only and a.out:  # a partial run updates its rows of the table it writes (read back: research_table_run)
        old_run = research_table_run(a.out)
        earlier = {r["id"]: r for r in old_run["rows"]}
        earlier_conv = {c["package"]: c for c in old_run["conversions"]}
    if a.only and os.path.exists(json_path):  # ... and of the last runs' JSON, more detailed where it has them
        with open(json_path) as f:
            old_run = json.load(f)
        earlier.update({r["id"]: r for r in old_run.get("rows", [])})
        earlier_conv.update({c["package"]: c for c in old_run.get("conversions", [])})

    def merged(new_rows, new_conv):
        both = {**earlier, **{r["id"]: r for r in new_rows}}
        conv = {**earlier_conv, **{c["package"]: c for c in new_conv}}
        keys = list(dict.fromkeys(c.repo for c in RESEARCH if c.id in both))
        return [both[c.id] for c in RESEARCH if c.id in both], [conv[k] for k in keys if k in conv]

    def finished(row):
        bar.finish(row)
        rows[row["id"]] = row
        done, conv = merged([rows[c.id] for c in cases if c.id in rows], conversions)
        _write_atomic(json_path, json.dumps({"rows": done, "conversions": conv}, indent=1))

    for row in run_batch(runnable, a.corpus, a.timeout, on_start=lambda c: bar.start(c.id), on_row=finished):
        rows[row["id"]] = row
    rows = [rows[c.id] for c in cases]
    total = time.perf_counter() - t0
    run = f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} ({total / 60:.1f} min)"
    for r in rows:
        r["run"] = run
    note = ""
    if a.only:
        rows, conversions = merged(rows, conversions)
        runs = sorted({r.get("run") or "an earlier run" for r in rows})
        note = (f"Merged from {len(runs)} run(s): {'; '.join(runs)}. "
                f"{len(rows)} of the {len(RESEARCH)} research models have a row.")
    _write_atomic(json_path, json.dumps({"rows": rows, "conversions": conversions}, indent=1))
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        _write_atomic(a.out, splice(_read(a.out), research=render_research(rows, conversions, total, note)))
    passed = sum(r["passed"] for r in rows)
    print(f"{passed}/{len(rows)} research models pass parity, {sum(r['builds'] for r in rows)}/{len(rows)} build, "
          f"{sum(silent(r) for r in rows)} silent failure(s); {total:.0f} s; table: "
          f"{os.path.relpath(a.out, ROOT) if a.out else '-'}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", help="run the models whose id contains this text (repeatable)")
    ap.add_argument("--corpus", default=CORPUS, help="download / conversion folder (default benchmarks/corpus)")
    ap.add_argument("--out", default=DOC, help="the markdown table (default docs/real_models.md)")
    ap.add_argument("--json", default=None, help="also write the rows as JSON (default CORPUS/real_models.json)")
    ap.add_argument("--skip-convert", action="store_true", help="reuse CORPUS/ms from an earlier run")
    ap.add_argument("--fetch-only", action="store_true")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per model (default 600)")
    ap.add_argument("--list", action="store_true", help="print the corpus and exit")
    ap.add_argument("--merge", nargs="+", metavar="JSON",
                    help="write the table from earlier runs' JSON files (each package's rows and conversion from the "
                         "last file that ran it), instead of running; a .md file is a table this benchmark wrote "
                         "(its rows, read back)")
    ap.add_argument("--research", action="store_true",
                    help="run the research-repository corpus (REPOS / RESEARCH) instead of the library one; its table "
                         "is the second section of --out")
    ap.add_argument("--mirror", default=MIRROR,
                    help="folder of the research repositories' git mirrors, DIR/OWNER+NAME/repo (default "
                         "$MSMIGRATE_MIRROR or ../.mirror beside the checkout)")
    ap.add_argument("--seed", type=int, default=0,
                    help="seed of the torch weights' initialisation, the inputs and MindSpore (default 0): a faithful "
                         "port passes at any seed")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--worker-batch", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if not (a.worker or a.worker_batch):
        os.environ[SEED_ENV] = str(a.seed)
    if a.worker:
        _worker_main(a.worker, a.corpus)
        return 0
    if a.worker_batch:
        _worker_batch(a.worker_batch, a.corpus)
        return 0
    if a.merge and a.research:
        return merge_research(a.merge, a.out)
    if a.merge:
        return merge(a.merge, a.out)
    if a.research:
        return main_research(a)
    cases = select(a.only)
    done = _list_or_none(cases, a.list, "model")
    if done is not None:
        return done
    t0 = time.perf_counter()
    needed = [p for p in PACKAGES if p == "torchvision" or any(c.module.split(".")[0] == p for c in cases)]
    if "segmentation_models_pytorch" in needed:
        needed = PACKAGES  # smp imports timm and torchvision
    try:
        versions = fetch(a.corpus, needed, log=lambda s: print(s, file=sys.stderr))
    except (FetchError, subprocess.TimeoutExpired) as exc:
        print(f"real_models: cannot fetch the corpus: {exc}", file=sys.stderr)
        return 1
    if a.fetch_only:
        return 0
    conv_path = os.path.join(a.corpus, "ms", "conversions.json")
    if a.skip_convert and os.path.exists(conv_path):
        with open(conv_path) as f:
            conversions = [c for c in json.load(f) if c["package"] in needed]
    else:
        conversions = []
        for pkg in needed:
            print(f"converting {pkg} with msmigrate convert ...", file=sys.stderr, flush=True)
            c = convert(pkg, a.corpus)
            print(f"  {pkg}: {c['files']} files, {c['markers']} markers, {c['seconds']} s"
                  + ("" if c["ok"] else f", FAILED: {c['error']}"), file=sys.stderr, flush=True)
            conversions.append(c)
        os.makedirs(os.path.dirname(conv_path), exist_ok=True)
        _write_atomic(conv_path, json.dumps(conversions, indent=1))
    failed = {c["package"]: c for c in conversions if not c["ok"]}
    bar = Progress(len(cases))
    rows = {}
    runnable = []
    for case in cases:
        pkg = case.module.split(".")[0]
        bad = next((failed[p] for p in DEPENDS.get(pkg, [pkg]) if p in failed), None)
        if bad:
            rows[case.id] = _failed_row(case, "convert", f"{bad['package']}: {bad['error']}", 0.0)
            bar.finish(rows[case.id])
        else:
            runnable.append(case)
    json_path = a.json or os.path.join(a.corpus, "real_models.json")

    def finished(row):  # each row is saved as it comes: an interrupted run keeps what it measured
        bar.finish(row)
        rows[row["id"]] = row
        done = [rows[c.id] for c in cases if c.id in rows]
        _write_atomic(json_path, json.dumps({"rows": done, "conversions": conversions, "versions": versions,
                                             "run": f"a partial run of {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"},
                                            indent=1))

    for row in run_batch(runnable, a.corpus, a.timeout, on_start=lambda c: bar.start(c.id), on_row=finished):
        rows[row["id"]] = row
    rows = [rows[c.id] for c in cases]
    total = time.perf_counter() - t0
    text = render(rows, conversions, versions, total)
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        _write_atomic(a.out, splice(_read(a.out), library=text))
    run = f"a run of {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} ({total / 60:.0f} min)"
    _write_atomic(json_path, json.dumps({"rows": rows, "conversions": conversions, "versions": versions, "run": run},
                                        indent=1))
    passed = sum(r["passed"] for r in rows)
    print(f"{passed}/{len(rows)} pass parity, {sum(r['builds'] for r in rows)}/{len(rows)} build; "
          f"{total:.0f} s; table: {os.path.relpath(a.out, ROOT) if a.out else '-'}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, ROOT)
    sys.exit(main())
