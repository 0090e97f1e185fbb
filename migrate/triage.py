""""Fix these first": the conversion report's problems ranked by what they block.

A file that failed to convert blocks everything in it; a marker on a model's ``forward`` (or in the
``__init__`` that builds it) stops the model from running; one in the training step (a loop or function that
calls ``.backward()`` / ``.step()``) stops training; then everything else; code that nothing in the converted
files refers to (a function or method whose name is never read) comes last. Read from the torch sources with
``ast``; nothing is executed. A file that cannot be read or parsed ranks its markers as "other".
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

FAILED, MODEL, TRAINING, OTHER, DEAD = range(5)
LABELS = {FAILED: "file not converted", MODEL: "model", TRAINING: "training step", OTHER: "other",
          DEAD: "not called"}
FORWARD = {"forward", "construct"}


@dataclass
class Item:
    rank: int
    where: str   # file:line (notebooks: nb.ipynb:cell 3:line 4)
    text: str    # "unsupported torch.x: reason" / "error: message"
    context: str  # "forward of UNet", "training step in train()", "train() is never called", ...

    def line(self) -> str:
        return f"{self.where}: {self.text}  [{self.context}]"


def _parse(filename: str, text: str | None):
    if filename.endswith(".ipynb"):
        return None
    if text is None:
        try:
            text = Path(filename).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _references(trees) -> set[str]:
    names: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute):
                names.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
                names.add(node.value)  # getattr(obj, "name"), __all__, registries
    return names


def _trains(node) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("backward", "step")
               for n in ast.walk(node))


def _chain(tree, line: int) -> list:
    """The nodes (classes, functions, loops) enclosing ``line``, outermost first."""
    out, nodes = [], list(ast.iter_child_nodes(tree))
    while nodes:
        for node in nodes:
            if getattr(node, "lineno", 0) <= line <= (getattr(node, "end_lineno", 0) or 0):
                if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.While)):
                    out.append(node)
                nodes = list(ast.iter_child_nodes(node))
                break
        else:
            break
    return out


def classify(tree, line: int, refs: set[str]) -> tuple[int, str]:
    chain = _chain(tree, line)
    classes = {}
    owner = None
    for node in chain:
        if isinstance(node, ast.ClassDef):
            owner = node
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            classes[node] = owner
            owner = None
    funcs = [n for n in chain if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for fn in funcs:
        cls = classes.get(fn)
        if fn.name in FORWARD:
            return MODEL, f"forward of {cls.name}" if cls else "forward"
        if fn.name == "__init__" and cls is not None and any(
                isinstance(m, ast.FunctionDef) and m.name in FORWARD for m in cls.body):
            return MODEL, f"builds {cls.name}"
    for node in chain:
        if isinstance(node, (ast.For, ast.While, ast.FunctionDef, ast.AsyncFunctionDef)) and _trains(node):
            where = next((f" in {f.name}()" for f in reversed(funcs)), "")
            return TRAINING, f"training step{where}"
    for fn in funcs:
        if not fn.name.startswith("__") and not fn.decorator_list and fn.name not in refs:
            return DEAD, f"{fn.name}() is never called in the converted files"
    return OTHER, f"in {funcs[-1].name}()" if funcs else "module level"


def rank(report, texts: dict[str, str] | None = None) -> list[Item]:
    """Every failed file and every marker of ``report``, most blocking first (stable within a rank)."""
    texts = texts or {}
    trees = {f.filename: _parse(f.filename, texts.get(f.filename)) for f in report.files if f.unsupported}
    refs = _references([t for t in trees.values() if t is not None])
    for f in report.files:  # files without markers still call functions of the others
        if not f.unsupported and not f.errors:
            tree = _parse(f.filename, texts.get(f.filename))
            if tree is not None:
                refs |= _references([tree])
    items = []
    for f in report.files:
        for e in f.errors:
            items.append(Item(FAILED, e.where(), f"error: {e.message}", LABELS[FAILED]))
        tree = trees.get(f.filename)
        for u in f.unsupported:
            r, context = classify(tree, u.line, refs) if tree is not None and u.cell is None else (OTHER, "")
            items.append(Item(r, u.where(), f"unsupported {u.api}: {u.reason}", context or LABELS[r]))
    return sorted(items, key=lambda i: i.rank)
