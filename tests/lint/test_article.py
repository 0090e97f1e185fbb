"""The seed article's examples (sections 2.2, 3.1, 4.2, 6.1, 6.2, 6.4, 6.6), rebuilt with the
punctuation the article's text lost, are flagged at the right lines and nowhere else."""
from pathlib import Path

from migrate.lint import lint_source

SOURCE = (Path(__file__).parent / "article_examples.py.txt").read_text()


def line_of(text: str) -> int:
    lines = [n for n, line in enumerate(SOURCE.splitlines(), 1) if line.strip() == text]
    assert len(lines) == 1, text
    return lines[0]


def test_article_examples_flagged_at_the_right_lines():
    found = {(f.rule, f.line) for f in lint_source(SOURCE, "article.py")}
    assert found == {
        ("MS005", line_of("ms.set_seed(1)")),                                   # 6.1
        ("MS001", line_of("out = temp[0] + temp[1] + temp[2] + temp[3]")),      # 6.2 / 3.3
        ("MS003", line_of("if self.debug:")),                                   # 4.2 / 6.5
        ("MS004", line_of("from mindspore import ms_function")),                # 6.6
        ("MS004", line_of("@ms_function")),
        ("MS006", line_of('edge_loss = amp.auto_mixed_precision(EdgeAwareLoss(weight=0.1), "O2")')),
    }
