"""`msmigrate convert --html`: one self-contained page with the summary and a side-by-side view per file."""
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from examples.notebook.make_tutorial import notebook as tutorial
from migrate.cli import main
from migrate.html_report import _rows

ROOT = Path(__file__).resolve().parents[2]
VOID = {"meta", "br", "col", "img", "hr", "input", "link", "source", "wbr"}


class Page(HTMLParser):
    """Collects tags, attributes and text; checks that every element is closed in order."""

    def __init__(self):
        super().__init__()
        self.stack, self.tags, self.rows, self.text = [], [], [], []
        self.errors = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("html")
    src = tmp / "proj"
    shutil.copytree(ROOT / "examples" / "crack_unet" / "torch", src)
    nbformat.write(tutorial(), src / "tutorial.ipynb")
    (src / "bad.py").write_text("import torch\nx = (\n")
    code = main(["convert", str(src), "-o", str(tmp / "ms"), "--report", str(tmp / "r.json"),
                 "--html", str(tmp / "report.html")])
    assert code == 1  # bad.py
    text = (tmp / "report.html").read_text()
    parser = Page()
    parser.feed(text)
    parser.close()
    return text, parser, json.loads((tmp / "r.json").read_text()), tmp


def test_self_contained_and_well_formed(page):
    text, parser, _, _ = page
    assert not parser.errors and parser.stack == []
    tags = {t for t, _ in parser.tags}
    assert "script" not in tags and "link" not in tags and "img" not in tags and "iframe" not in tags
    for _, attrs in parser.tags:
        for key in ("src", "href"):
            assert not attrs.get(key) or attrs[key].startswith("#"), attrs  # only in-page anchors
    assert "@import" not in text and "url(" not in text and "http" not in text.split("</style>")[0]


def test_summary_matches_the_report(page):
    text, parser, report, _ = page
    cards = {label: n for n, label in re.findall(r'<div class="n">([^<]+)</div><div class="l">([^<]+)</div>', text)}
    assert cards["files"] == str(report["files"]) == "7"
    assert cards["torch API uses"] == str(report["api_calls"])
    assert cards["converted"] == str(report["converted"])
    assert cards["unsupported"] == str(len(report["unsupported"]))
    assert cards["failed to convert"] == "1"
    assert cards["conversion rate"] == f"{report['conversion_rate']:.1%}"
    body = "".join(parser.text)
    for u in report["unsupported"]:  # each unsupported use, where it is and why
        where = f"{u['file']}:cell {u['cell']}:line {u['line']}" if "cell" in u else f"{u['file']}:{u['line']}"
        assert where in body and u["reason"] in body
    assert "syntax error" in body and "bad.py:2" in body
    # the bar chart shows the unsupported APIs even though they are used once
    bars = re.findall(r'<div class="bar" title="([^"]+)"', text)
    assert any(b.startswith("torch.fmin: 0 converted, 1 unsupported") for b in bars)
    assert any(b.startswith("torch.nn.Conv2d: 6 converted, 0 unsupported") for b in bars)
    assert re.search(r"</i>converted<i [^>]*></i>unsupported", text)  # the legend


def test_side_by_side(page):
    text, parser, report, tmp = page
    sections = re.findall(r'<section class="file" id="f(\d+)">', text)
    assert len(sections) == report["files"]
    # every marker of the converted files is one red row
    markers = sum(p.read_text().count("# msmigrate: unsupported") for p in (tmp / "ms").glob("*.py"))
    markers += sum(c.source.count("# msmigrate: unsupported") for c in nbformat.read(
        tmp / "ms" / "tutorial.ipynb", as_version=4).cells)
    assert text.count('<tr class="marker"') == markers == 1
    assert re.search(r'<tr class="marker"[^>]*>.*?unsupported <b>torch\.fmin</b>: ops\.fmin has '
                     r'no CPU kernel', text)
    # the converted API is highlighted on both sides of its row
    row = re.search(r'<tr class="chg"[^>]*>(?:(?!</tr>).)*nn\.<mark>Linear</mark>\(16 \* 7 \* 7, classes\)'
                    r'(?:(?!</tr>).)*</tr>', text)
    assert row and "nn.<mark>Dense</mark>(16 * 7 * 7, classes)" in row.group(0)
    # notebook cells have header rows, and line numbers within the cell (as the report names them)
    assert '<tr class="cell"><td colspan="4">[cell 9]</td></tr>' in text
    line = re.search(r'<tr class="chg" id="f\d+-L\d+"><td class="ln">(\d+)</td><td class="src l code">'
                     r'criterion = <mark>nn.</mark>CrossEntropyLoss\(\)', text)  # converted (a CrossEntropyLoss Cell)
    assert line and line.group(1) == "3"
    assert "unchanged lines" in text  # long unchanged stretches fold


def test_rows_alignment():
    left = "import torch\na = 1\nx = torch.zeros(2)\ny = torch.einsum('i->i', x)\n"
    right = ("from mindspore import ops\nimport torch  # msmigrate: kept for the unconverted APIs marked below\na = 1\n"
             "x = ops.zeros(2)\n# msmigrate: unsupported torch.einsum: no kernel\ny = torch.einsum('i->i', x)\n")
    rows = _rows(left, right)
    kinds = [(r[0], r[1], r[3]) for r in rows]
    assert kinds == [("chg", 1, 1), ("add", None, 2), ("eq", 2, 3), ("chg", 3, 4), ("marker", None, 5),
                     ("eq", 4, 6)]
    assert rows[4][4].group(2) == "torch.einsum" and rows[4][4].group(3) == "no kernel"


def test_many_reasons_are_capped_per_api():
    from migrate.html_report import render
    from migrate.report import FileResult, Report, Unsupported

    f = FileResult("a.py", "x\n", api_calls=8)
    f.unsupported = [Unsupported("a.py", i, "torch.x", f"reason {i % 7}") for i in range(1, 9)]
    page = render(Report([f]), {"a.py": ("x\n", "x\n")})
    block = re.search(r'<div class="api">.*?</div></div>|<div class="api">.*?</ul></div>', page).group(0)
    assert block.count("<li>") == 6 and "… 2 other reasons (2 uses; see the files below)" in block
    assert "reason 1 <span" in block  # reason 1 is used twice (lines 1 and 8): counted, listed first


def test_the_page_opens_with_fix_these_first(page):
    """Before the figures: the failed file, then the markers, each linking to its file's section."""
    text, _, report, _ = page
    first = text.index('<div class="first"><h2>Fix these first')
    assert first < text.index('<div class="cards">')
    items = re.findall(r"<li><span class=\"pill rank(\d)\">([^<]+)</span> <a href=\"#f(\d+)\"><code>([^<]+)</code>",
                       text[first:text.index("</ol>", first)])
    assert len(items) == len(report["errors"]) + len(report["unsupported"])
    assert items[0][1] == "file not converted" and items[0][3].endswith("bad.py:2")
    assert [int(i[0]) for i in items] == sorted(int(i[0]) for i in items)
