"""The conversion report: what ONNX ops were seen, converted, left as stubs."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class OnnxReport:
    source: str
    code_path: str = ""
    checkpoint_path: str = ""
    class_name: str = ""
    opset: int = 0
    ops_seen: dict[str, int] = field(default_factory=dict)       # op type -> count in the ONNX file
    ops_converted: dict[str, int] = field(default_factory=dict)  # op / fused layer -> count emitted
    ops_folded: int = 0                                           # nodes evaluated at conversion time
    unsupported: list[dict] = field(default_factory=list)         # {node, op_type, reason}
    parameters: int = 0                                           # tensors in the checkpoint

    @property
    def ok(self) -> bool:
        return not self.unsupported

    def to_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}

    def summary(self) -> str:
        lines = [f"{self.source}: opset {self.opset}, {sum(self.ops_seen.values())} ONNX nodes, "
                 f"{self.ops_folded} folded, {sum(self.ops_converted.values())} emitted "
                 f"-> {self.code_path} ({self.class_name}), {self.checkpoint_path} "
                 f"({self.parameters} tensors)"]
        for item in self.unsupported:
            lines.append(f"  unsupported {item['op_type']} at node {item['node']}: {item['reason']}")
        return "\n".join(lines)
