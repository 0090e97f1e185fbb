"""PaConvert's per-API test snippets, converted and run in both frameworks (issue 30).

PaConvert (github.com/PaddlePaddle/PaConvert) tests each torch API with short snippets:

    pytorch_code = textwrap.dedent('''
        import torch
        result = torch.abs(torch.tensor([-1, -2, 3]))
    ''')
    obj.run(pytorch_code, ["result"], rtol=..., check_value=...)

This harness reads ``tests/test_*.py`` at a pinned commit from the local git mirror (never a network fetch, never
committed), takes every snippet with named results, runs it in torch, converts it with ``convert_source``, runs
the conversion in MindSpore and compares the named results. Each snippet gets one class:

    pass       every named result equal within the case's rtol/atol (PaConvert's default 1e-6 relative)
    precision  within 2e-4 relative (kernel precision, docs/call_forms.md)
    wrong      beyond that, another shape, another type, or another length: a silently wrong conversion
    dtype      the values agree, the dtypes differ (the case checks dtypes)
    marked     the conversion refused something (an ``# msmigrate: unsupported`` marker): not run
    crash      the converted code raised, timed out, or lacks a named result
    torch      the torch snippet itself does not run here (not counted)

    PYTHONPATH=$PWD python benchmarks/peer_api_tests.py --subset every7          # the table's first row
    PYTHONPATH=$PWD python benchmarks/peer_api_tests.py --subset forms           # out= / inplace=True / _foreach_
    PYTHONPATH=$PWD python benchmarks/peer_api_tests.py --only torch.copysign -v # one API, with reasons

Snippets run in worker processes (torch and MindSpore imported once per worker); a worker that hangs past
``--timeout`` seconds on one snippet is killed, the snippet is a crash, and a new worker takes the rest.
Results go to a JSON-lines file (``--out``, default benchmarks/corpus/peer_api_tests.jsonl) as they finish.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("GLOG_v", "3")
os.environ.setdefault("ONEDNN_MAX_CPU_ISA", "AVX2")
ROOT = Path(__file__).resolve().parents[1]
MIRROR = Path("/work/.mirror/PaddlePaddle+PaConvert/repo")
COMMIT = "73e14f0"
CLASSES = ("pass", "marked", "crash", "wrong", "dtype", "precision")
FORMS = re.compile(r"[(,]\s*out\s*=|inplace\s*=\s*True|_foreach_")  # the call forms of issue 30
PRECISION = 2e-4


# ---------------------------------------------------------------- reading the peer's tests

def _git(mirror: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(mirror), *args], check=True, capture_output=True,
                          text=True).stdout


def _snippet_text(node, names: dict, makers: dict):
    """The code string a run() call's first argument stands for: a name bound to dedent("..."), a literal, or a
    call of one of the peer's code generators with literal arguments (``generate_optimizer_test_code("...")``)."""
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if not isinstance(node, ast.Call):
        return None
    if isinstance(node.func, ast.Name) and node.func.id in makers:
        args = [_literal(a, _MISSING) for a in node.args]
        kwargs = {k.arg: _literal(k.value, _MISSING) for k in node.keywords if k.arg}
        if _MISSING in args or _MISSING in kwargs.values():
            return None
        return makers[node.func.id](*args, **kwargs)
    if node.args:  # textwrap.dedent(...)
        return _snippet_text(node.args[0], names, makers)
    return None


_MISSING = object()


def _makers(tree, folder: Path) -> dict:
    """The code generators a test file imports from the peer's own helper modules (tests/*_helper.py)."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.endswith("_helper") \
                and (folder / f"{node.module}.py").is_file():
            ns: dict = {}
            exec(compile((folder / f"{node.module}.py").read_text(), node.module, "exec"), ns)  # noqa: S102
            for alias in node.names:
                if callable(ns.get(alias.name)):
                    found[alias.asname or alias.name] = ns[alias.name]
    return found


def _literal(node, default=None):
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError):
        return default


def extract(source: str, path: str, folder: Path | None = None) -> list[dict]:
    """Every snippet of one test file that names results: {id, api, code, names, rtol, atol, check_*}."""
    from textwrap import dedent

    tree = ast.parse(source)
    makers = _makers(tree, folder) if folder is not None else {}
    api = None
    for node in tree.body:  # obj = APIBase("torch.abs") (or a subclass)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value.args \
                and isinstance(node.value.args[0], ast.Constant) and isinstance(node.value.args[0].value, str):
            func = node.value.func
            if isinstance(func, ast.Name) and func.id.endswith("APIBase"):
                api = node.value.args[0].value
                break
    cases = []
    for fn in tree.body:
        if not (isinstance(fn, ast.FunctionDef) and fn.name.startswith("test")):
            continue
        names: dict[str, str] = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                text = _snippet_text(node.value, {}, makers)
                if text is not None:
                    names[node.targets[0].id] = text
        k = 0
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "run" and len(node.args) >= 2):
                continue
            code = _snippet_text(node.args[0], names, makers)
            wanted = _literal(node.args[1])
            if code is None or not isinstance(wanted, list) or not wanted:
                continue
            kw = {k_.arg: _literal(k_.value, "?") for k_ in node.keywords if k_.arg}
            if kw.get("expect_paddle_code") not in (None, "?") and kw.get("expect_paddle_code"):
                continue
            cases.append({
                "id": f"{path}::{fn.name}" + (f"#{k}" if k else ""), "api": api or path,
                "code": dedent(code), "names": wanted,
                "rtol": float(kw.get("rtol", 1e-6)) if isinstance(kw.get("rtol", 1e-6), (int, float)) else 1e-6,
                "atol": float(kw.get("atol", 0.0)) if isinstance(kw.get("atol", 0.0), (int, float)) else 0.0,
                "check_value": kw.get("check_value", True) is not False,
                "check_dtype": kw.get("check_dtype", True) is not False,
                "check_shape": kw.get("check_shape", True) is not False,
            })
            k += 1
    return cases


def load_cases(mirror: Path = MIRROR, commit: str = COMMIT) -> list[dict]:
    """All snippets of tests/test_*.py at ``commit``, in file order (sorted paths), each file's in its order.

    The tests are unpacked once (``git archive``) into the git-ignored benchmarks/corpus/paconvert-<commit>/."""
    import tarfile

    folder = ROOT / "benchmarks" / "corpus" / f"paconvert-{commit}"
    if not (folder / "tests").is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        data = subprocess.run(["git", "--git-dir", str(mirror), "archive", commit, "tests"], check=True,
                              capture_output=True).stdout
        import io
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            tar.extractall(folder, filter="data")
    files = sorted(p.name for p in (folder / "tests").glob("test_*.py"))
    cases = []
    for name in files:
        source = (folder / "tests" / name).read_text(encoding="utf-8")
        try:
            cases.extend(extract(source, name, folder / "tests"))
        except SyntaxError:
            continue
    return cases


def select(cases: list[dict], subset: str, only: list[str]) -> list[dict]:
    if only:
        return [c for c in cases if c["api"] in only or any(o in c["id"] for o in only)]
    if subset == "every7":
        return cases[::7]
    if subset == "forms":
        return [c for c in cases if FORMS.search(c["code"])]
    return cases


# ---------------------------------------------------------------- running one snippet (worker side)

def _plain(value, depth=0):
    """A framework-neutral picture of a result: ('array', ndarray, dtype name) / ('seq', [...]) / scalars."""
    import numpy as np

    if depth > 6:
        return ("other", repr(value)[:200])
    mod = type(value).__module__ or ""
    if hasattr(value, "asnumpy") or (mod.startswith("torch") and hasattr(value, "detach")
                                     and hasattr(value, "dtype") and hasattr(value, "shape")):
        if hasattr(value, "asnumpy"):
            dtype = str(value.dtype).lower()
            try:
                arr = value.asnumpy()
            except Exception:  # noqa: BLE001  (bfloat16 and the like)
                import mindspore as ms
                arr = value.astype(ms.float32).asnumpy()
        else:
            dtype = str(value.dtype).replace("torch.", "").lower()
            t = value.detach().cpu()
            if t.is_conj():
                t = t.resolve_conj()
            if t.is_neg():
                t = t.resolve_neg()
            arr = (t.float() if t.dtype.is_floating_point and t.element_size() == 2 and "bfloat" in dtype
                   else t).numpy()
        return ("array", np.asarray(arr), _dtype_name(dtype))
    if isinstance(value, np.ndarray):
        return ("array", value, _dtype_name(str(value.dtype)))
    if mod.startswith("torch") and type(value).__name__ == "device":
        return ("device", value.type)
    if isinstance(value, dict):
        return ("dict", [_plain(k, depth + 1) for k in value], [_plain(v, depth + 1) for v in value.values()])
    if isinstance(value, (list, tuple)) or type(value).__name__ in ("Size", "TensorShape"):
        return ("seq", [_plain(v, depth + 1) for v in value])
    if isinstance(value, (bool, int, float, complex, str, type(None), np.generic)):
        return ("scalar", value.item() if isinstance(value, np.generic) else value)
    if mod.startswith(("torch", "mindspore")) and "dtype" in type(value).__name__.lower() or \
            type(value).__name__ in ("Float", "Int", "Bool", "Complex", "UInt", "BFloat", "TensorType"):
        return ("dtypeobj", _dtype_name(str(value).replace("torch.", "").lower()))
    return ("other", type(value).__name__)


_DTYPE_ALIASES = {"float": "float32", "double": "float64", "half": "float16", "long": "int64", "int": "int32",
                  "bool_": "bool", "complex": "complex64", "cfloat": "complex64", "cdouble": "complex128"}


def _dtype_name(text: str) -> str:
    text = text.strip().lower().replace("mindspore.", "")
    return _DTYPE_ALIASES.get(text, text)


def compare(t, m, case) -> tuple[str, str]:
    """('pass' | 'precision' | 'dtype' | 'wrong', why) for one named result."""
    import numpy as np

    if m[0] == "other" and m[1] in ("builtin_function_or_method", "method", "function"):
        return "wrong", f"a {m[1]} where torch has a value (an attribute read as a method?)"
    if t[0] == "seq" and m[0] == "array" and m[1].ndim == 1 and all(x[0] == "scalar" for x in t[1]):
        m = ("seq", [("scalar", x.item()) for x in m[1]])  # torch.Size vs a shape given as a tensor
    if t[0] == "device":  # torch.device('cuda:0') -> a device string ('GPU', 'CPU:0') or an object
        want = {"cuda": "gpu"}.get(t[1], t[1])
        got = str(m[1]).lower().split(":")[0].replace("cuda", "gpu")
        return ("pass", "") if got == want else ("wrong", f"device {t[1]} vs {m[1]}")
    if t[0] != m[0]:
        if t[0] == "scalar" and m[0] == "array" and m[1].size == 1:
            m = ("scalar", m[1].item())
        elif t[0] == "array" and m[0] == "scalar":
            m = ("array", np.asarray(m[1]), t[2])
        else:
            return "wrong", f"kind {t[0]} vs {m[0]}"
    kind = t[0]
    if kind in ("seq", "dict"):
        tt = t[1] + (t[2] if kind == "dict" else [])
        mm = m[1] + (m[2] if kind == "dict" else [])
        if len(tt) != len(mm):
            return "wrong", f"length {len(tt)} vs {len(mm)}"
        worst = ("pass", "")
        order = ("pass", "precision", "dtype", "wrong")
        for a, b in zip(tt, mm):
            got = compare(a, b, case)
            if order.index(got[0]) > order.index(worst[0]):
                worst = got
        return worst
    if kind == "scalar":
        a, b = t[1], m[1]
        if isinstance(a, (int, float, complex)) and isinstance(b, (int, float, complex)) \
                and not isinstance(a, bool) and not isinstance(b, bool):
            return compare(("array", np.asarray(a), "py"), ("array", np.asarray(b), "py"), case)
        return ("pass", "") if a == b else ("wrong", f"{a!r} vs {b!r}")
    if kind == "dtypeobj":
        return ("pass", "") if t[1] == m[1] else ("wrong", f"dtype object {t[1]} vs {m[1]}")
    if kind == "other":
        return "pass", ""  # an object both sides made (a module, a generator): nothing numeric to compare
    a, b = t[1], m[1]
    if case["check_shape"] and a.shape != b.shape:
        if a.size == b.size == 1 and a.ndim + b.ndim <= 1 and not case["check_dtype"]:
            pass
        else:
            return "wrong", f"shape {a.shape} vs {b.shape}"
    if case["check_value"]:
        try:
            a64 = a.astype(np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(b) else np.float64)
            b64 = b.astype(a64.dtype).reshape(a64.shape)
        except (TypeError, ValueError):
            return ("pass", "") if np.array_equal(a, b) else ("wrong", "values (non-numeric)")
        if not np.allclose(b64, a64, rtol=case["rtol"], atol=case["atol"], equal_nan=True):
            if np.allclose(b64, a64, rtol=PRECISION, atol=max(case["atol"], 1e-6), equal_nan=True):
                return "precision", _diff(a64, b64)
            return "wrong", _diff(a64, b64)
        if a.dtype == np.float64 or a.dtype == np.float32:  # -0.0 vs 0.0 where torch keeps the sign
            pass
    if case["check_dtype"] and t[2] != m[2] and t[2] != "py" and m[2] != "py":
        return "dtype", f"dtype {t[2]} vs {m[2]}"
    return "pass", ""


def _diff(a, b) -> str:
    import numpy as np

    with np.errstate(all="ignore"):
        d = np.abs(a - b)
        d = d[np.isfinite(d)] if d.size else d
        err = float(d.max()) if d.size else float("nan")
    return f"values differ (max abs {err:.3g}; torch {np.ravel(a)[:4]} vs ms {np.ravel(b)[:4]})"


def _exec(code: str, names: list[str]):
    import contextlib
    import io

    ns: dict = {"__name__": "__peer__"}
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        exec(compile(code, "<snippet>", "exec"), ns)  # noqa: S102  (the peer's test snippets, by design)
    missing = [n for n in names if n not in ns]
    if missing:
        raise NameError(f"no result named {missing[0]!r}")
    return [_plain(ns[n]) for n in names]


def run_case(case: dict) -> dict:
    import warnings

    from migrate.api import convert_source

    out = {"id": case["id"], "api": case["api"]}
    warnings.filterwarnings("ignore")
    try:
        torch_vals = _exec(case["code"], case["names"])
    except BaseException as exc:  # noqa: BLE001
        out.update(cls="torch", why=f"{type(exc).__name__}: {str(exc)[:200]}")
        return out
    try:
        res = convert_source(case["code"], "snippet.py")
    except Exception as exc:  # noqa: BLE001
        out.update(cls="crash", why=f"convert raised {type(exc).__name__}: {str(exc)[:200]}")
        return out
    if res.errors:
        out.update(cls="crash", why=f"convert error: {str(res.errors[0])[:200]}")
        return out
    if res.unsupported:
        u = res.unsupported[0]
        out.update(cls="marked", why=f"{getattr(u, 'api', '?')}: {str(getattr(u, 'reason', u))[:160]}")
        return out
    try:
        ms_vals = _exec(res.code, case["names"])
    except BaseException as exc:  # noqa: BLE001
        out.update(cls="crash", why=f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ''}")
        return out
    worst, why = "pass", ""
    order = ("pass", "precision", "dtype", "wrong")
    for name, t, m in zip(case["names"], torch_vals, ms_vals):
        try:
            got = compare(t, m, case)
        except Exception as exc:  # noqa: BLE001
            got = ("wrong", f"compare raised {type(exc).__name__}: {exc}")
        if order.index(got[0]) > order.index(worst):
            worst, why = got[0], f"{name}: {got[1]}"
    out.update(cls=worst, why=why)
    return out


def worker(path: str) -> int:
    """Run the cases of a JSON-lines file; print one line as each starts and one as each finishes."""
    import mindspore as ms

    ms.set_context(mode=ms.PYNATIVE_MODE)
    if hasattr(ms, "set_device"):
        ms.set_device("CPU")
    import torch  # noqa: F401

    real_stdout = sys.stdout
    with open(path) as f:
        for line in f:
            case = json.loads(line)
            print(json.dumps({"start": case["id"]}), file=real_stdout, flush=True)
            print(json.dumps(run_case(case)), file=real_stdout, flush=True)
    return 0


# ---------------------------------------------------------------- the supervisor

def run_all(cases: list[dict], timeout: float, out_path: Path, verbose: bool) -> list[dict]:
    """Workers over the cases; one that stalls past ``timeout`` on a snippet (or dies) is replaced."""
    import selectors
    import tempfile

    results: list[dict] = []
    done: set[str] = set()
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out_path.parent.mkdir(parents=True, exist_ok=True)
    api_of = {c["id"]: c["api"] for c in cases}

    def record(r, sink):
        results.append(r)
        done.add(r["id"])
        sink.write(json.dumps(r) + "\n")
        sink.flush()
        if verbose and r["cls"] != "pass":
            print(f"{r['cls']:9} {r['id']}  {r.get('why', '')}", flush=True)
        elif not verbose and len(results) % 100 == 0:
            print(f"  {len(results)}/{len(cases)}", file=sys.stderr, flush=True)

    with out_path.open("w") as sink, tempfile.TemporaryDirectory() as tmp:
        while len(done) < len(cases):
            todo = Path(tmp) / "todo.jsonl"
            todo.write_text("".join(json.dumps(c) + "\n" for c in cases if c["id"] not in done))
            proc = subprocess.Popen([sys.executable, __file__, "--worker", str(todo)], stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True, env=env, cwd=tmp,
                                    start_new_session=True)
            sel = selectors.DefaultSelector()
            sel.register(proc.stdout, selectors.EVENT_READ)
            current, started = None, time.time()
            while True:
                limit = (timeout if current else 180.0) - (time.time() - started)
                line = proc.stdout.readline() if limit > 0 and sel.select(timeout=limit) else None
                if not line:  # stalled or exited
                    if line is None:
                        proc.kill()
                    proc.wait()
                    if current is None:
                        if len(done) < len(cases):
                            raise SystemExit("error: a worker stopped outside any snippet (imports?)")
                        break
                    why = "timeout" if line is None else f"the worker died (exit {proc.returncode})"
                    record({"id": current, "api": api_of[current], "cls": "crash",
                            "why": f"{why} ({timeout:.0f} s limit)"}, sink)
                    break
                msg = json.loads(line)
                if "start" in msg:
                    current, started = msg["start"], time.time()
                    continue
                record(msg, sink)
                current, started = None, time.time()
            sel.close()
    return results


def table_row(label: str, results: list[dict]) -> str:
    counted = [r for r in results if r["cls"] != "torch"]
    n = len(counted) or 1
    c = Counter(r["cls"] for r in counted)

    def cell(k, pct=True):
        return f"{c[k]:,} ({100 * c[k] / n:.1f}%)" if pct else f"{c[k]:,}"

    return (f"| {label} | {len(counted):,} | {cell('pass')} | {cell('marked')} | {cell('crash')} | "
            f"{cell('wrong')} | {cell('dtype', False)} | {cell('precision', False)} |")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--subset", choices=("every7", "forms", "all"), default="every7")
    p.add_argument("--only", action="append", default=[], help="an API (torch.abs) or a test-id fragment")
    p.add_argument("--mirror", type=Path, default=MIRROR)
    p.add_argument("--commit", default=COMMIT)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per snippet before its worker is killed")
    p.add_argument("--limit", type=int, default=0, help="only the first N snippets of the subset")
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "corpus" / "peer_api_tests.jsonl")
    p.add_argument("--list", action="store_true", help="print the selected snippet ids and stop")
    p.add_argument("-v", "--verbose", action="store_true", help="print every snippet that does not pass")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        sys.path.insert(0, str(ROOT))
        return worker(args.worker)
    if not (args.mirror / "objects").exists() and not (args.mirror / ".git").exists():
        print(f"error: no git mirror of PaConvert at {args.mirror}", file=sys.stderr)
        return 2
    cases = load_cases(args.mirror, args.commit)
    chosen = select(cases, args.subset, args.only)
    if args.limit:
        chosen = chosen[:args.limit]
    if args.list:
        for c in chosen:
            print(c["id"], c["api"])
        return 0
    print(f"PaConvert {args.commit}: {len(cases):,} snippets with named results; "
          f"{'--only' if args.only else args.subset}: {len(chosen):,} ({len({c['api'] for c in chosen}):,} APIs)",
          file=sys.stderr)
    t0 = time.time()
    results = run_all(chosen, args.timeout, args.out, args.verbose)
    counted = [r for r in results if r["cls"] != "torch"]
    print(f"{len(results) - len(counted)} do not run in torch here (not counted); "
          f"{time.time() - t0:.0f} s; results in {args.out}", file=sys.stderr)
    print("| subset | run in torch | pass | marked | crash | wrong | dtype | precision |")
    print("|---|---|---|---|---|---|---|---|")
    print(table_row(f"{'only' if args.only else args.subset} at {args.commit}", results))
    bad = Counter(r["api"] for r in counted if r["cls"] in ("wrong", "crash"))
    if bad and not args.verbose:
        print("\nwrong / crash by API:", ", ".join(f"{a} {n}" for a, n in bad.most_common(30)))
    return 1 if any(r["cls"] == "wrong" for r in counted) else 0


if __name__ == "__main__":
    sys.exit(main())
