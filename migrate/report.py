"""The conversion report: what was found, converted and left unsupported, as JSON and as terminal text."""
from __future__ import annotations

from collections import Counter
import re
from dataclasses import asdict, dataclass, field


@dataclass
class Unsupported:
    file: str
    line: int
    api: str
    reason: str
    cell: int | None = None  # notebooks: the cell (1-based, in notebook order); ``line`` is then within it

    def where(self) -> str:
        return where(self.file, self.line, self.cell)


@dataclass
class InputError:
    file: str
    line: int
    message: str
    cell: int | None = None

    def where(self) -> str:
        return where(self.file, self.line, self.cell)


def where(file: str, line: int, cell: int | None = None) -> str:
    """``file:line``, or ``nb.ipynb:cell 3:line 4`` for a notebook cell."""
    return f"{file}:cell {cell}:line {line}" if cell is not None else f"{file}:{line}"


def record_dict(record) -> dict:
    """A report record as JSON; ``cell`` only for notebooks."""
    d = asdict(record)
    if d.get("cell") is None:
        d.pop("cell", None)
    return d


@dataclass
class FileResult:
    """The result of converting one source text (``migrate.convert_source`` returns this)."""

    filename: str
    code: str
    api_calls: int = 0
    converted: int = 0
    unsupported: list[Unsupported] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    apis: Counter = field(default_factory=Counter)  # converted API -> uses
    jit: list = field(default_factory=list)  # migrate.rewrite.jit.JitStep per training step (convert --jit)
    failed_uses: int = 0  # a file that failed to convert: its torch uses, counted on the text (see torch_uses)

    @property
    def failed(self) -> bool:
        """The file did not convert (syntax error, undecodable bytes, an internal error): none of its uses count
        as converted."""
        return bool(self.errors)


_USE = re.compile(r"\b(?:torch|nn|F)\.[A-Za-z_]\w*")


def torch_uses(text: str) -> int:
    """The torch uses of a file that could not be parsed, counted on its text (``torch.x``, ``nn.X``, ``F.x``
    outside comments): what a failed file leaves unconverted, for the rate."""
    return sum(len(_USE.findall(line.split("#", 1)[0])) for line in text.splitlines())


@dataclass
class Report:
    files: list[FileResult] = field(default_factory=list)

    @property
    def api_calls(self) -> int:
        """torch API uses found; a file that failed to convert counts its uses (at least one) as found."""
        return sum(max(f.api_calls, f.failed_uses, 1) if f.failed else f.api_calls for f in self.files)

    @property
    def converted(self) -> int:
        """Uses converted, in the files that converted (a failed file converts nothing)."""
        return sum(f.converted for f in self.files if not f.failed)

    @property
    def failed_files(self) -> list[FileResult]:
        return [f for f in self.files if f.failed]

    @property
    def unsupported(self) -> list[Unsupported]:
        return [u for f in self.files for u in f.unsupported]

    @property
    def errors(self) -> list[InputError]:
        return [e for f in self.files for e in f.errors]

    @property
    def jit(self) -> list:
        return [s for f in self.files for s in f.jit]

    @property
    def conversion_rate(self) -> float:
        return self.converted / self.api_calls if self.api_calls else 1.0

    def to_json(self) -> dict:
        return {
            "files": len(self.files),
            "failed_files": [f.filename for f in self.failed_files],
            "api_calls": self.api_calls,
            "converted": self.converted,
            "conversion_rate": round(self.conversion_rate, 4),
            "unsupported": [record_dict(u) for u in self.unsupported],
            "errors": [record_dict(e) for e in self.errors],
            "apis": dict(sum((f.apis for f in self.files), Counter()).most_common()),
            "jit": [asdict(s) for s in self.jit],
        }

    def summary(self, first: int = 10) -> str:
        """Terminal text: "fix these first" (the ``first`` most blocking problems, migrate/triage.py), the
        totals, then every marker, error and jit step."""
        lines = []
        if self.errors or self.unsupported:
            from .triage import rank

            items = rank(self)
            shown = items[:first]
            lines.append(f"fix these first ({len(shown)} of {len(items)}: failed files, then the model's forward, "
                         "the training step, the rest; code nothing calls last):")
            lines += [f"  {i.line()}" for i in shown]
        failed = len(self.failed_files)
        lines.append(
            f"files: {len(self.files)}" + (f" ({failed} failed to convert)" if failed else "")
            + f"   torch API uses: {self.api_calls}   converted: {self.converted}   "
            f"unsupported: {len(self.unsupported)}   conversion rate: {self.conversion_rate:.1%}")
        for u in self.unsupported:
            lines.append(f"  {u.where()}: unsupported {u.api}: {u.reason}")
        for e in self.errors:
            lines.append(f"  {e.where()}: error: {e.message} (not converted)")
        for s in self.jit:
            lines.append(f"  {s.file}:{s.line}: jit: " + ("wrapped: " if s.wrapped else "eager: ") + s.reason)
        return "\n".join(lines)
