"""A study whose every name is an attack (tests/support/hostile_study.py), reproduced and imported: every output
shows the names as written and none of them acts. report.md rendered by a CommonMark renderer has no element,
link or image from the data; report.html and the SVG figures neither; no CSV text cell starts a formula (numbers
stay numbers); no LaTeX file has a live control sequence or a comment ended by the data; the terminal gets no
control character from the data (reproduce, import, status, stats)."""

from __future__ import annotations

import csv
import io
import re
import subprocess
import sys
import unicodedata
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from execugraph.safety.inert_text import BIDI_CONTROLS, CSV_RISKY_START, WORD_JOINER
from tests.stats.test_stats_family_and_tables import check_latex_table
from tests.support import hostile_study as H

pytestmark = pytest.mark.integration

PROJECT = Path(__file__).resolve().parents[2]
REPORT_TAGS = {"h1", "h2", "h3", "p", "ul", "li", "table", "thead", "tbody", "tr", "th", "td", "strong", "em", "img"}
HTML_TAGS = REPORT_TAGS | {"html", "head", "meta", "title", "style", "body", "caption", "figure", "figcaption"}
LATEX_COMMANDS = {"begin", "end", "centering", "small", "caption", "label", "toprule", "midrule", "bottomrule", "par",
                  "smallskip", "footnotesize", "textbackslash", "textasciitilde", "textasciicircum", "cdot", "dagger"}
STANDALONE_COMMANDS = {"documentclass", "usepackage", "begin", "end", "input"}


def _cli(db: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "execugraph", "--db", str(db), *args], capture_output=True,
                          text=True, timeout=600, cwd=PROJECT)


@dataclass
class Outputs:
    out: Path
    terminal: dict[str, subprocess.CompletedProcess]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Outputs:
    root = tmp_path_factory.mktemp("hostile")
    folder, families = H.write_study(root)
    out = root / "out"
    done = _cli(root / "runs.db", "reproduce", str(folder), "--families", str(families), "--out", str(out),
                "--workers", "1")
    assert done.returncode in (0, 1), done.stderr  # 1: everything but the figures (no chromium here)
    imported = root / "imported.db"
    terminal = {"reproduce": done, "import": _cli(imported, "import", str(folder))}
    assert terminal["import"].returncode == 0, terminal["import"].stderr
    broken = root / "broken" / H.FOLDERS["a"]  # refused: the message names the file, folder name and all
    broken.mkdir(parents=True)
    (broken / "trials.jsonl").write_text('{"problem_id": "x", "passed": "yes"}\n')
    terminal["refused"] = _cli(imported, "import", str(root / "broken"))
    assert terminal["refused"].returncode == 2, terminal["refused"].stderr
    terminal["status"] = _cli(imported, "status", "1", "2", "3")
    terminal["stats"] = _cli(imported, "stats", "--runs", "1", "2", "3")
    return Outputs(out, terminal)


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _elements(html: str) -> Elements:
    parser = Elements()
    parser.feed(html)
    return parser


def _no_acting_characters(text: str, where: str) -> None:
    assert not set(text) & BIDI_CONTROLS, f"{where}: a bidirectional control is shown unmarked"
    assert "\x1b" not in text and "\x07" not in text, f"{where}: a terminal escape"


def test_report_md_renders_the_names_as_text_and_nothing_else(hostile: Outputs) -> None:
    md = (hostile.out / "report.md").read_text()
    _no_acting_characters(md, "report.md")
    rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(md)
    found = _elements(rendered)
    assert {tag for tag, _ in found.tags} <= REPORT_TAGS, {tag for tag, _ in found.tags} - REPORT_TAGS
    for tag, attrs in found.tags:
        if tag == "img":  # only the report's own figures, by relative path
            assert re.fullmatch(r"figures/[A-Za-z0-9_.-]+\.svg", attrs["src"]), attrs
        for name, value in attrs.items():
            assert "javascript:" not in value and "://" not in value, (tag, name, value)
    text = "".join(found.text).replace(WORD_JOINER, "")
    for payload in (H.SCRIPT, H.IMG_HTML, H.IMG_MD, H.JS_LINK, H.HTML_LINK, H.FORMULA, H.INPUT, H.PIPE.strip(),
                    H.TICKS):
        assert payload in text, f"{payload!r} is not shown as written"
    assert "<U+202E>" in text and "<U+001B>]0;owned<U+0007>" in text
    assert "\\immediate\\write18{touch /tmp/pwned}" in text  # on the line of its name, not a line of its own
    assert not any(line.startswith("\\immediate") for line in md.splitlines())


def test_report_html_is_escaped_and_embeds_only_its_figures(hostile: Outputs) -> None:
    html = (hostile.out / "report.html").read_text()
    _no_acting_characters(html, "report.html")
    found = _elements(html)
    assert {tag for tag, _ in found.tags} <= HTML_TAGS, {tag for tag, _ in found.tags} - HTML_TAGS
    for tag, attrs in found.tags:
        if tag == "img":
            assert attrs["src"].startswith("data:image/svg+xml;base64,"), attrs["src"][:80]
    assert H.SCRIPT in "".join(found.text)


def test_figures_draw_names_as_text(hostile: Outputs) -> None:
    svgs = sorted((hostile.out / "figures").glob("*.svg"))
    if not svgs:
        pytest.skip("no figures: chromium is not installed here")
    for path in svgs:
        text = path.read_text()
        _no_acting_characters(text, path.name)
        for element in ET.fromstring(text).iter():
            tag = element.tag.rpartition("}")[2]
            assert tag not in ("a", "script", "image", "foreignObject"), (path.name, tag)
            for name, value in element.attrib.items():
                if name.rpartition("}")[2] == "href":
                    assert value.startswith("#"), (path.name, value)


def test_no_csv_text_cell_starts_a_formula_and_numbers_stay_numbers(hostile: Outputs) -> None:
    cells = []
    for path in sorted((hostile.out / "tables").glob("*.csv")):
        text = path.read_text()
        _no_acting_characters(text, path.name)
        cells += [cell for row in csv.reader(io.StringIO(text)) for cell in row]
    numbers, texts = [], []
    for cell in cells:
        try:
            numbers.append(float(cell))
        except ValueError:
            texts.append(cell)
    risky = [c for c in texts if c.lstrip(" ").startswith(CSV_RISKY_START)]
    assert not risky, risky
    assert any(c.startswith("'=HYPERLINK(") for c in texts) and any(c.startswith("'+cmd") for c in texts)
    assert any(c.startswith("'-2 ") for c in texts)  # a text cell that looks like a number is text
    assert any(n < 0 for n in numbers)  # the reversed pair's delta: a plain negative number, not neutralised


def test_latex_has_no_live_command_and_no_comment_ended_by_the_data(hostile: Outputs) -> None:
    tables = hostile.out / "tables"
    seen = ""
    for path in sorted(tables.glob("*.tex")):
        text = path.read_text()
        _no_acting_characters(text, path.name)
        commands = set(re.findall(r"\\([A-Za-z]+)", text))
        if path.name == "tables.tex":
            assert commands <= STANDALONE_COMMANDS, commands - STANDALONE_COMMANDS
            for name in re.findall(r"\\input\{([^}]*)\}", text):
                assert re.fullmatch(r"[a-z0-9_-]+\.tex", name) and (tables / name).is_file(), name
            continue
        assert commands <= LATEX_COMMANDS, (path.name, commands - LATEX_COMMANDS)
        lines = text.splitlines()
        assert lines[0].startswith("% ") and lines[1] == r"\begin{table}[t]", (path.name, lines[:2])
        assert sum(line.startswith("%") for line in lines) == 1, path.name
        check_latex_table(text)  # every row whole: no data newline, &, %, # or brace loose in a cell
        seen += text
    assert r"\textbackslash{}input\{/etc/passwd\}" in seen  # the family name, shown
    assert r"\textbackslash{}immediate\textbackslash{}write18\{touch /tmp/pwned\}" in seen


def _acting(text: str) -> list[str]:
    """Characters that would act on a terminal: controls other than line feed and the progress line's CR."""
    return sorted({repr(ch) for ch in text if ch in BIDI_CONTROLS or
                   (unicodedata.category(ch) == "Cc" and ch not in "\n\r")})


@pytest.mark.parametrize("command", ["reproduce", "import", "refused", "status", "stats"])
def test_the_terminal_gets_no_control_character_from_the_data(hostile: Outputs, command: str) -> None:
    done = hostile.terminal[command]
    for stream, text in (("stdout", done.stdout), ("stderr", done.stderr)):
        assert not _acting(text), (command, stream, _acting(text))
        assert not any(line.startswith("\\immediate") for line in re.split(r"[\r\n]", text)), (command, stream)
    if command == "status":
        assert len(done.stdout.splitlines()) == 3  # one line per run, whatever its title holds
        assert "<U+001B>]0;owned<U+0007><U+202E>cba" in done.stdout
    if command == "import":
        assert "\\u001b]0;owned\\u0007\\u202ecba" in done.stdout  # JSON: the run named, escaped
    if command == "refused":
        assert "<U+001B>]0;owned<U+0007><U+202E>cba/trials.jsonl:1" in done.stderr  # named visibly
