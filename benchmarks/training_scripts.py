"""Real training entry scripts of the research corpus, run in PyTorch and after ``msmigrate convert`` in MindSpore.

For each script of ``SCRIPTS`` (training entry points of the repositories in ../shared/corpus/research_repos.md):

1. the repository is checked out at its pinned commit (real_models.checkout: git mirrors under ../.mirror, into the
   git-ignored benchmarks/corpus/research/src) and copied to benchmarks/corpus/training/KEY/torch;
2. the whole checkout is converted as one project with the real CLI (``msmigrate convert SRC -o .../ms``);
3. tiny synthetic data is written in the repository's own format (image + mask folders, list files) into both
   copies; the images are mirror-symmetric and identical within a folder, so random flips and shuffled order (which
   the two frameworks draw from different generators) do not change a batch;
4. each copy's script runs with the same command line (tiny sizes, one epoch, no workers) under a harness that
   never edits the script: it seeds ``random`` / numpy / the framework, stubs imports the machine lacks that only
   log (visdom, tensorboard, ptflops), records each training step's loss (torch: ``Tensor.backward``; MindSpore:
   the function ``ms.value_and_grad`` returns), stops after ``steps`` of them, and makes both runs start from the
   same weights: the torch run saves each optimizer's parameters when the optimizer is built, the MindSpore run
   loads them into the k-th optimizer's parameters (same order and shapes, or the row says so);
5. per-step losses are compared (rel 1e-4).

    .venv/bin/python benchmarks/training_scripts.py                 # all scripts, table on stdout
    .venv/bin/python benchmarks/training_scripts.py --only segdecnet  # scripts whose key contains the word
    .venv/bin/python benchmarks/training_scripts.py --write-docs    # the table into docs/training_scripts.md
    .venv/bin/python benchmarks/training_scripts.py --rows rows.json --write-docs  # a --json run's table

The data design a converted script gets: torch's data pipeline (torchvision transforms, PIL, cv2, the repository's
Dataset classes) is kept and the batches become MindSpore tensors at the DataLoader (MapDataLoader), see
docs/training_scripts.md.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import real_models as R  # noqa: E402  (checkout, Repo, the corpus folder)

WORK = os.path.join(R.CORPUS, "training")
DEPS = os.path.join(R.CORPUS, "deps")  # torchvision, einops, opencv (pip --target, never the venv)
DOC = os.path.join(ROOT, "docs", "training_scripts.md")
RTOL = 1e-4
MARKER = "# msmigrate:"


# ------------------------------------------------------------------------------ synthetic data
def _img(path, h, w, channels=3, value=None, seed=0):
    """A mirror-symmetric image (equal under horizontal and vertical flips): random in one quadrant, mirrored."""
    import numpy as np
    from PIL import Image

    rng = np.random.RandomState(seed)
    q = rng.randint(0, 256, size=((h + 1) // 2, (w + 1) // 2, channels)).astype(np.uint8)
    if value is not None:
        q = (q > 200).astype(np.uint8) * value
    full = np.concatenate([q, q[:, ::-1]], axis=1)[:, :w]
    full = np.concatenate([full, full[::-1]], axis=0)[:h]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # PNG bytes whatever the name says (readers go by content): lossless, so the flips stay exact
    Image.fromarray(full[..., 0] if channels == 1 else full).save(path, format="PNG")


def data_kolektor(root):
    # KolektorDataset: Data/<subFold>/*.jpg (the labels are read from the same files)
    for sub in ("Train_OK", "Train_NG", "Test"):
        for i in range(6):
            _img(os.path.join(root, "Data", sub, f"{i:02d}.jpg"), 64, 32, seed=1)


def data_rafd(root):
    # torchvision ImageFolder: data/RaFD/train/<class>/*.jpg
    for c in range(3):
        for i in range(2):
            _img(os.path.join(root, "data", "RaFD", "train", f"class{c}", f"{i}.jpg"), 40, 40, seed=c)


def data_concrete(root):
    # CrackSeU's ConcreteCrackDataset: <root>/<split>/image/*.jpg + <root>/<split>/label/*.png (see its Dataset.py)
    for split in ("train", "val", "test"):
        for i in range(4):
            _img(os.path.join(root, "data", split, "image", f"{i}.jpg"), 352, 352, seed=2)
            _img(os.path.join(root, "data", split, "label", f"{i}.png"), 352, 352, channels=1, value=255, seed=3)


def data_crack500(root):
    # yakhyo/crack-segmentation RoadCrack: <data>/{train,test}/images/NAME.jpg + masks/NAME.jpg (mask_suffix="")
    for split in ("train", "test"):
        for i in range(4):
            _img(os.path.join(root, "data", split, "images", f"{i}.jpg"), 64, 64, seed=2)
            _img(os.path.join(root, "data", split, "masks", f"{i}.jpg"), 64, 64, channels=1, value=255, seed=3)


def data_crack_folders(root):
    # CrackSegFormer's CrackDataset: <root>/{train,val}/images/NAME + <root>/{train,val}/masks/NAME (same name)
    for split in ("train", "val"):
        for i in range(4):
            _img(os.path.join(root, "data", split, "images", f"{i}.png"), 64, 64, seed=2)
            _img(os.path.join(root, "data", split, "masks", f"{i}.png"), 64, 64, channels=1, value=255, seed=3)


def data_flat_folders(root):
    # pytorch-AdaIN FlatFolderDataset: every file of --content_dir / --style_dir. One colour per folder: the script's
    # Resize(512) + RandomCrop(256) then give the same image wherever torch's generator puts the crop
    from PIL import Image

    for sub, colour in (("content", (200, 120, 40)), ("style", (30, 90, 210))):
        os.makedirs(os.path.join(root, "data", sub), exist_ok=True)
        for i in range(2):
            Image.new("RGB", (64, 64), colour).save(os.path.join(root, "data", sub, f"{i}.png"))


def weights_adain(torch_copy, ms_copy):
    # the pretrained encoder file --vgg names (models/vgg_normalised.pth): torch's freshly built net.vgg saved in
    # torch's format, and for the converted script the same file through `msmigrate weights` (what a user runs)
    os.makedirs(os.path.join(torch_copy, "models"), exist_ok=True)
    pth = os.path.join(torch_copy, "models", "vgg_normalised.pth")
    subprocess.run([sys.executable, "-c", "import torch, net; torch.manual_seed(1); "
                    "torch.save(net.vgg.state_dict(), 'models/vgg_normalised.pth')"], cwd=torch_copy, check=True,
                   env=dict(os.environ, PYTHONPATH=DEPS), capture_output=True)
    os.makedirs(os.path.join(ms_copy, "models"), exist_ok=True)
    shutil.copy(pth, os.path.join(ms_copy, "models", "vgg_normalised.pth"))
    r = subprocess.run([sys.executable, "-m", "migrate.cli", "weights", pth, "-o",
                        os.path.join(ms_copy, "models", "vgg_normalised.pth.ckpt"), "--quiet"], cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"msmigrate weights: {R._last(r.stderr)}")


REPOS = {**R.REPOS, **{r.key: r for r in [
    R.Repo("adain", "naoto0804/pytorch-AdaIN", "47950d0e66", ["net.py", "function.py"]),
]}}


@dataclass
class Script:
    key: str                 # the row
    repo: str                # a key of real_models.REPOS
    script: str              # the entry point, relative to the checkout
    argv: list               # its command line (tiny sizes, one epoch, no workers)
    data: object = None      # writes the synthetic data into a copy's root
    stubs: list = field(default_factory=list)  # imports the machine lacks that only log
    steps: int = 3           # losses compared (training steps; a GAN's D and G steps are one each)
    cwd: str = ""            # run from this folder of the copy (default: the root)
    note: str = ""           # idioms of the script
    prepare: object = None   # (torch copy, converted copy): files the script loads (pretrained weights)


SCRIPTS = [
    Script("segdecnet/train_segment.py", "segdecnet", "train_segment.py",
           ["--cuda", "", "--worker_num", "0", "--batch_size", "2", "--end_epoch", "1", "--need_test", "",
            "--need_save", "", "--img_height", "64", "--img_width", "32"], data_kolektor,
           note="dict batches from a torchvision-transform Dataset, two loaders' iterators interleaved, Adam"),
    Script("stargan/main.py", "stargan", "main.py",
           ["--dataset", "RaFD", "--rafd_image_dir", "data/RaFD/train", "--c_dim", "3", "--rafd_crop_size", "40",
            "--image_size", "32", "--g_conv_dim", "8", "--d_conv_dim", "8", "--g_repeat_num", "1",
            "--d_repeat_num", "3", "--batch_size", "2", "--num_iters", "2", "--n_critic", "1",
            "--num_workers", "0", "--use_tensorboard", "False", "--log_step", "1000", "--sample_step", "1000",
            "--model_save_step", "1000"], data_rafd, steps=4,
           note="WGAN-GP: autograd.grad gradient penalty, D and G Adam steps, reset_grad helper, ImageFolder"),
    Script("pytorch-AdaIN/train.py", "adain", "train.py",
           ["--content_dir", "data/content", "--style_dir", "data/style", "--batch_size", "1", "--n_threads", "0",
            "--max_iter", "3", "--save_model_interval", "1000"], data_flat_folders, stubs=["tensorboardX"],
           prepare=weights_adain,
           note="frozen VGG encoder loaded from a .pth, module-level Sequential singletons, infinite sampler, "
                "lr set in param_groups every step"),
    Script("yakhyo-crack/train.py", "yakhyo-crack", "train.py",
           ["--data", "data", "--image_size", "64", "--batch-size", "2", "--epochs", "1"], data_crack500,
           stubs=["crackseg.utils=utils"],
           note="AMP flag, GradScaler(enabled=), RMSprop foreach, ReduceLROnPlateau, checkpoint dicts"),
    Script("cracksegformer/tools/train.py", "cracksegformer", "tools/train.py",
           ["--data-path", "data", "--batch-size", "2", "--epochs", "1", "--pretrained", "", "--amp", "",
            "--device", "cpu"], data_crack_folders, stubs=["matplotlib", "matplotlib.pyplot"],
           note="optional GradScaler, warmup-poly LambdaLR, train_one_epoch(model, optimizer, ..., scaler)"),
]


# ------------------------------------------------------------------------------ the harness (inside each run)
class _Done(BaseException):
    """Enough steps recorded (a BaseException: the script's `except Exception` does not swallow it)."""


def _stub_module(name):
    import types

    class Anything:
        def __init__(self, *a, **k):
            pass

        def __call__(self, *a, **k):
            return Anything()

        def __getattr__(self, item):
            return Anything()

        def __iter__(self):
            return iter(())

    mod = types.ModuleType(name)
    mod.__path__ = []
    def attr(item):
        if item.startswith("__"):
            raise AttributeError(item)
        return Anything

    mod.__getattr__ = attr
    sys.modules[name] = mod


def harness(fw, script, args, init, losses_path, steps, stubs):
    import random
    import runpy

    import numpy as np

    sys.modules["torchvision._meta_registrations"] = __import__("types").ModuleType("torchvision._meta_registrations")
    for s in stubs:
        if "=" not in s:
            _stub_module(s)
    random.seed(0)
    np.random.seed(0)
    record = {"losses": [], "init": [], "error": None}

    def note(loss):
        if len(record["losses"]) >= steps:
            raise _Done()
        record["losses"].append(loss)

    if fw == "torch":
        import torch

        torch.manual_seed(0)
        backward = torch.Tensor.backward

        def recording_backward(self, *a, **k):
            if self.numel() == 1:
                note(float(self.detach()))
            return backward(self, *a, **k)

        torch.Tensor.backward = recording_backward
        opt_init = torch.optim.Optimizer.__init__

        def saving_init(self, params, defaults, *a, **k):
            opt_init(self, params, defaults, *a, **k)
            values = [p.detach().numpy().copy() for g in self.param_groups for p in g["params"]]
            k_ = len(record["init"])
            np.savez(os.path.join(init, f"opt{k_}.npz"), *values)
            record["init"].append(f"saved {len(values)}")

        torch.optim.Optimizer.__init__ = saving_init
        if not torch.cuda.is_available():  # a script that hard-codes 'cuda' runs on this CPU-only torch
            def cpu(a):
                return "cpu" if (isinstance(a, str) and a.startswith("cuda")) or (
                    isinstance(a, torch.device) and a.type == "cuda") else a

            for cls in (torch.Tensor, torch.nn.Module):
                to = cls.to
                cls.to = (lambda to: lambda self, *a, **k: to(self, *[cpu(x) for x in a],
                                                               **{n: cpu(v) for n, v in k.items()}))(to)
                cls.cuda = lambda self, *a, **k: self
    else:
        import mindspore as ms

        ms.set_seed(0)
        vag = ms.value_and_grad

        def recording_value_and_grad(fn, *a, **k):
            grad_fn = vag(fn, *a, **k)

            def run(*x, **kw):
                if len(record["losses"]) >= steps:
                    raise _Done()
                out = grad_fn(*x, **kw)
                value = out[0]
                while isinstance(value, (tuple, list)):
                    value = value[0]
                record["losses"].append(float(value.asnumpy().reshape(-1)[0]))
                return out

            return run

        ms.value_and_grad = recording_value_and_grad

        def loading(cls):
            orig = cls.__init__

            def init_(self, *a, **k):
                orig(self, *a, **k)
                if getattr(self, "_harness_loaded", False):
                    return
                self._harness_loaded = True
                groups = getattr(self, "param_groups", None)
                params = ([p for g in groups for p in g["params"]] if groups else list(self.parameters))
                k_ = len(record["init"])
                path = os.path.join(init, f"opt{k_}.npz")
                if not os.path.exists(path):
                    record["init"].append("no torch optimizer %d" % k_)
                    return
                saved = np.load(path)
                values = [saved[f"arr_{i}"] for i in range(len(saved.files))]
                if len(values) != len(params) or any(tuple(v.shape) != tuple(p.shape) for v, p in
                                                     zip(values, params)):
                    record["init"].append(f"mismatch: torch {len(values)} parameters, MindSpore {len(params)}")
                    return
                for v, p in zip(values, params):
                    p.set_data(ms.Tensor(v, p.dtype))
                record["init"].append(f"loaded {len(values)}")

            cls.__init__ = init_

        loading(ms.nn.Optimizer)
        try:
            from mindspore.experimental import optim as exp_optim
            loading(exp_optim.Optimizer)
        except ImportError:
            pass
    sys.argv = [script] + list(args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    sys.path.insert(0, os.getcwd())
    try:
        import importlib

        for s in stubs:  # "missing.module=existing.module": a package the commit lacks, its module in the checkout
            if "=" in s:
                name, real = s.split("=")
                parts = name.split(".")
                for i in range(1, len(parts)):
                    _stub_module(".".join(parts[:i]))
                sys.modules[name] = importlib.import_module(real)
        try:
            import torch  # a kept torch data pipeline draws from torch's generator (seeded as the script would)
            torch.manual_seed(0)
        except ImportError:
            pass
        runpy.run_path(script, run_name="__main__")
    except _Done:
        pass
    except SystemExit as e:
        if e.code not in (None, 0):
            record["error"] = f"SystemExit({e.code})"
    except BaseException as e:  # the row's first cause
        import traceback

        tb = traceback.extract_tb(e.__traceback__)
        where = next((f"{os.path.relpath(f.filename)}:{f.lineno}" for f in reversed(tb)
                      if os.path.abspath(f.filename).startswith(os.getcwd())), "")
        record["error"] = f"{type(e).__name__}: {str(e).strip().splitlines()[0][:200] if str(e).strip() else ''}" \
                          f" ({where})"
    finally:
        with open(losses_path, "w") as f:
            json.dump(record, f)
        os._exit(0)  # MindSpore's and torch's worker threads do not hold the exit


# ------------------------------------------------------------------------------ one script
def _run(fw, s: Script, copy, init, timeout, threads=2):
    out = os.path.join(os.path.dirname(copy), f"{fw}{'' if threads == 2 else threads}.json")
    if os.path.exists(out):
        os.remove(out)
    env = dict(os.environ, PYTHONPATH=DEPS, ONEDNN_MAX_CPU_ISA="AVX2", GLOG_v="3", PYTHONHASHSEED="0",
               OMP_NUM_THREADS=str(threads))
    cmd = [sys.executable, os.path.abspath(__file__), "--harness", fw, os.path.join(copy, s.script), init, out,
           str(s.steps), ",".join(s.stubs), "--", *s.argv]
    t0 = time.perf_counter()
    try:
        r = subprocess.run(cmd, cwd=os.path.join(copy, s.cwd), env=env, capture_output=True, text=True,
                           timeout=timeout)
        tail = R._last(r.stderr) or R._last(r.stdout)
    except subprocess.TimeoutExpired:
        return {"losses": [], "init": [], "error": f"timed out after {timeout} s", "seconds": timeout}
    try:
        with open(out) as f:
            rec = json.load(f)
    except (OSError, ValueError):
        rec = {"losses": [], "init": [], "error": f"no record (exit {r.returncode}): {tail}"}
    rec["seconds"] = round(time.perf_counter() - t0, 1)
    return rec


def _convert(src, dst):
    shutil.rmtree(dst, ignore_errors=True)
    env = dict(os.environ, PYTHONPATH=ROOT)
    report = dst + ".report.json"
    r = subprocess.run([sys.executable, "-m", "migrate.cli", "convert", src, "-o", dst, "--report", report],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=1800)
    markers = {}
    for p in R._py_files(dst) if os.path.isdir(dst) else []:
        n = R._markers(p)
        if n:
            markers[os.path.relpath(p, dst)] = n
    return r.returncode, markers, R._last(r.stderr)


def _marked_lines(path, limit=3):
    found = []
    try:
        with open(path, encoding="utf-8") as f:
            for i, line in enumerate(f, 1):
                if line.lstrip().startswith(MARKER):
                    found.append(f"{os.path.basename(path)}:{i}: {line.strip()[len(MARKER):].strip()[:120]}")
    except OSError:
        pass
    return found[:limit]


def run_script(s: Script, timeout=600, converted=None) -> dict:
    repo = REPOS[s.repo]
    why = R.checkout(repo)
    row = {"key": s.key, "note": s.note}
    if why:
        return dict(row, cause=why)
    src = os.path.join(R.CORPUS, "research", "src", repo.key)
    base = os.path.join(WORK, repo.key)
    torch_copy, ms_copy, init = (os.path.join(base, d) for d in ("torch", "ms", "init"))
    if converted is None or repo.key not in converted:
        shutil.rmtree(torch_copy, ignore_errors=True)
        shutil.copytree(src, torch_copy, ignore=shutil.ignore_patterns("__pycache__", ".msmigrate-commit", ".git"))
        rc, markers, err = _convert(src, ms_copy)
        if converted is not None:
            converted[repo.key] = (rc, markers, err)
    else:
        rc, markers, err = converted[repo.key]
    shutil.rmtree(init, ignore_errors=True)
    os.makedirs(init)
    if s.data:
        s.data(torch_copy)
        s.data(ms_copy)
    if s.prepare:
        try:
            s.prepare(torch_copy, ms_copy)
        except Exception as e:
            return dict(row, converts=True, cause=f"preparing the script's files failed: {e}")
    row["convert_rc"] = rc
    row["markers"] = markers
    entry = os.path.join(ms_copy, s.script)
    row["entry_markers"] = _marked_lines(entry)
    row["converts"] = rc in (0, 3) and os.path.exists(entry)
    if not row["converts"]:
        return dict(row, cause=f"convert exit {rc}: {err}")
    t = _run("torch", s, torch_copy, init, timeout)
    row["torch"] = t
    if len(t["losses"]) < min(s.steps, 1):
        return dict(row, cause=f"the torch script does not run here: {t['error']}")
    # torch's own noise: the same script on one thread (another summation order), from the same weights
    noise_init = init + "-1thread"
    shutil.rmtree(noise_init, ignore_errors=True)
    os.makedirs(noise_init)
    t1 = _run("torch", s, torch_copy, noise_init, timeout, threads=1)
    k = min(len(t["losses"]), len(t1["losses"]))
    row["noise"] = max((abs(a - b) / max(abs(a), 1e-12) for a, b in zip(t["losses"][:k], t1["losses"][:k])),
                       default=None)
    m = _run("ms", s, ms_copy, init, timeout)
    row["ms"] = m
    row["runs"] = bool(m["losses"]) and (m["error"] is None or len(m["losses"]) >= len(t["losses"]))
    n = min(len(t["losses"]), len(m["losses"]))
    rel = [abs(a - b) / max(abs(a), 1e-12) for a, b in zip(t["losses"][:n], m["losses"][:n])]
    row["max_rel"] = max(rel) if rel else None
    row["match"] = row["runs"] and n == len(t["losses"]) and max(rel) <= RTOL
    if m["error"]:
        row["cause"] = m["error"]
    elif not m["losses"]:
        row["cause"] = "no training step recorded (no ms.value_and_grad call)"
    elif not row["match"]:
        loaded = ", ".join(m["init"]) or "no optimizer"
        first = next(i for i, r in enumerate(rel) if r > RTOL)
        row["cause"] = (f"losses differ from step {first} (max rel {row['max_rel']:.1e}; torch on 1 vs 2 threads: "
                        f"{row['noise']:.1e}; init: {loaded})")
    else:
        row["cause"] = ""
    return row


# ------------------------------------------------------------------------------ the table
def _yes(v):
    return "yes" if v else ("no" if v is not None else "-")


def _rel(r):
    if r.get("max_rel") is None:
        return "-"
    return f"{r['max_rel']:.1e} ({r['noise']:.1e})" if r.get("noise") is not None else f"{r['max_rel']:.1e}"


def table(rows) -> str:
    lines = ["| script | converts with no hand edit | runs under MindSpore | losses match (rel 1e-4) | torch losses | "
             "MindSpore losses | max rel (torch 1 vs 2 threads) | first cause |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        markers = sum(r.get("markers", {}).values()) if r.get("markers") else 0
        conv = ("-" if "converts" not in r else
                ("no" if not r["converts"] else ("yes" if not r.get("entry_markers") else
                                                  f"marked ({len(r['entry_markers'])} in the entry)")))
        if r.get("converts") and markers:
            conv += f"; {markers} markers in the project"
        tl = ", ".join(f"{x:.5g}" for x in r.get("torch", {}).get("losses", []))
        ml = ", ".join(f"{x:.5g}" for x in r.get("ms", {}).get("losses", []))
        cause = (r.get("cause") or "").replace("|", "\\|")
        if r.get("entry_markers") and not r.get("match"):
            cause = (cause + "; marked: " + "; ".join(r["entry_markers"])).strip("; ").replace("|", "\\|")
        lines.append(f"| {r['key']} | {conv} | {_yes(r.get('runs')) if 'torch' in r else '-'} | "
                     f"{_yes(r.get('match')) if 'ms' in r else '-'} | {tl} | {ml} | {_rel(r)} | {cause} |")
    return "\n".join(lines)


BEGIN, END = "<!-- training_scripts.py: begin -->", "<!-- training_scripts.py: end -->"


def write_docs(rows):
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    runs = sum(1 for r in rows if r.get("runs"))
    match = sum(1 for r in rows if r.get("match"))
    block = (f"{BEGIN}\n{len(rows)} training entry scripts; {runs} run under MindSpore with no hand edit, {match} "
             f"match torch's per-step losses from the same weights (regenerated by "
             f"`benchmarks/training_scripts.py --write-docs`).\n\n{table(rows)}\n{END}")
    if BEGIN in text:
        head, rest = text.split(BEGIN, 1)
        text = head + block + rest.split(END, 1)[1]
    else:
        text = text.rstrip() + "\n\n## The training-scripts benchmark\n\n" + block + "\n"
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv=None):
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "--harness":
        fw, script, init, out, steps, stubs = argv[1:7]
        return harness(fw, script, argv[8:], init, out, int(steps), [s for s in stubs.split(",") if s])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", action="append", default=[], help="scripts whose key contains this (repeatable)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per run (default 600)")
    ap.add_argument("--write-docs", action="store_true", help="write the table into docs/training_scripts.md")
    ap.add_argument("--json", help="also write the rows as JSON here")
    ap.add_argument("--rows", help="print (and --write-docs) the table of a --json file instead of running")
    a = ap.parse_args(argv)
    if a.rows:
        with open(a.rows) as f:
            rows = json.load(f)
        print(table(rows))
        if a.write_docs:
            write_docs(rows)
        return 0
    chosen = [s for s in SCRIPTS if not a.only or any(o in s.key for o in a.only)]
    if not chosen:
        print("no script matches --only", file=sys.stderr)
        return 2
    missing = [d for d in ("torchvision", "cv2") if not os.path.isdir(os.path.join(DEPS, d))]
    if missing:
        R.research_deps()
        if not os.path.isdir(os.path.join(DEPS, "cv2")):
            r = R._pip("install", "--no-deps", "--target", DEPS, "opencv-python-headless")
            if r.returncode:
                print(f"pip install opencv-python-headless failed: {R._last(r.stderr)}", file=sys.stderr)
                return 1
    rows, converted = [], {}
    for s in chosen:
        print(f"{s.key} ...", file=sys.stderr, flush=True)
        row = run_script(s, a.timeout, converted)
        rows.append(row)
        print(f"  {row.get('cause') or 'match'}", file=sys.stderr, flush=True)
    print(table(rows))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    if a.write_docs:
        write_docs(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
