"""The escaping functions, one per target, on the payloads a published study can carry: each renders the text
as written and nothing else (Markdown checked by a CommonMark renderer), and normal names stay readable."""

from __future__ import annotations

import csv
import io
import random
import re

import pytest
from markdown_it import MarkdownIt

from execugraph.cli.terminal import InertStream
from execugraph.safety.inert_text import (
    WORD_JOINER,
    chart_text,
    csv_cell,
    latex_text,
    md_rich,
    md_text,
    terminal_text,
    visible_bidi,
)
from execugraph.stats.table_format import render_all, to_csv, to_latex, to_markdown
from execugraph.stats.tables import PP, TEXT, Column, Table
from tests.support import hostile_study as H

MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
PAYLOADS = [*H.PAYLOADS, H.HTML_LINK, "# heading", "- item", "1. first", "> quote", "---", "**bold** _it_ ~~s~~",
            "&lt;b&gt; &#60;", "$x^2$", "[ref]: http://x", "<http://x>", "www.x.org", "me@x.org", ":red[x]"]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_markdown_text_renders_as_written(payload: str) -> None:
    source = md_text(payload)
    html = MD.render(f"- {source}\n\n| {source} |\n|---|\n| {source} |\n\n## {source}\n")
    assert re.findall(r"<(\w+)", html) == ["ul", "li", "table", "thead", "tr", "th", "tbody", "tr", "td", "h2"], html
    shown = MD.renderInline(source).replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
    shown = shown.replace("&amp;", "&").replace(WORD_JOINER, "")
    expected = payload.replace("\n", " ").replace("\x1b", "<U+001B>").replace("\x07", "<U+0007>")
    assert shown == expected.replace("\u202e", "<U+202E>")
    assert not re.search(r"https?://|www\.|\w@\w+\.", source)  # no GFM autolink left


def test_markdown_text_leaves_normal_names_readable() -> None:
    for name in ("e1_mf", "oneshot #1", "wrong_answer 0/2 -> retry", "pass@N (%)", "Rates & more", "a - b"):
        assert md_text(name) == name
    assert md_text("e1_mf *x*") == "e1_mf \\*x\\*"


def test_a_models_markdown_keeps_its_formatting_but_loads_and_links_nothing() -> None:
    text = ("**Plan**: use `grid[i](x)` and ![x](http://127.0.0.1:9/y.png) <img src=x> [l](javascript:alert(1))\n"
            "```python\nprint(a[0](1), '<b>')\n```\n- see http://x.org")
    safe = md_rich(text)
    html = MD.render(safe)
    assert "<strong>Plan</strong>" in html and "<code>grid[i](x)</code>" in html and "<li>" in html
    assert "print(a[0](1), '&lt;b&gt;')" in html  # the code block untouched
    assert not re.search(r"<(img|a)\b", html) and "<img src=x>" not in html
    assert "http://x.org" not in safe and "http:" + WORD_JOINER + "//x.org" in safe


ATOMS = ["`", "``", "```", "~~~", "  ```", "\t", "|---|---|\n", "\n\n", "| a `b | c` |", "\\", "[", "]", "(", ")",
         "!", "<", ">", "x", " ", "\n", "http://h/y.png", "a@b.c", "<img src=u>", "![i](u)", "[l](u)", "[r]: u",
         "    ", "- ", "1. ", "> ", "*", "_", "&lt;", "&#91;", "|", ":"]


def test_no_arrangement_of_markdown_syntax_survives_either_escape() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice(ATOMS) for _ in range(rng.randint(1, 12)))
        for escape in (md_text, md_rich):
            tokens = [t for block in MD.parse(escape(text)) for t in [block, *(block.children or [])]]
            assert not {t.type for t in tokens} & {"image", "link_open", "html_inline", "html_block"}, (escape, text)


def test_csv_text_cells_are_neutralised_and_numbers_are_not() -> None:
    for risky in ('=HYPERLINK("http://x","y")', "+cmd", "-2 x", "@SUM(A1)", "\tx", "\rx", " =1+1"):
        assert csv_cell(risky).startswith("'"), risky
    assert csv_cell("e1_mf") == "e1_mf" and csv_cell("a\u202eb") == "a<U+202E>b"
    table = Table("t", "T", [Column("name", "Name", TEXT), Column("d", "Delta (pp)", PP)],
                  [{"name": "=cmd", "d": -0.25}, {"name": "-0.25", "d": 1.5}])
    rows = list(csv.reader(io.StringIO(to_csv(table))))
    assert rows[1:] == [["'=cmd", "-0.25"], ["'-0.25", "1.5"]]  # a number stays a number; text is text


def test_latex_escapes_newlines_and_every_special_comments_included() -> None:
    title = H.FAMILY_NAMES[0] + " " + H.INPUT + " 50% #1 a_b & {x} ~ ^ [y] | <z>"
    text = to_latex(Table("t", title, [Column("a", title, TEXT)], [{"a": title}], [title]))
    lines = text.splitlines()
    assert lines[0].startswith("% ") and lines[1] == r"\begin{table}[t]"
    assert set(re.findall(r"\\([A-Za-z]+)", text)) <= {"begin", "end", "centering", "small", "caption", "label",
                                                      "toprule", "midrule", "bottomrule", "par", "smallskip",
                                                      "footnotesize", "textbackslash", "textasciitilde",
                                                      "textasciicircum"}
    assert latex_text("a\nb\r\nc\u2028d") == "a b c d"
    first = to_latex(Table("t", "t", [Column("a", "A")], [{"a": "[2pt] x"}, {"a": "*y"}])).splitlines()
    assert "{}[2pt] x \\\\" in first and "{}*y \\\\" in first  # not read as the previous row's [2pt] or *
    with pytest.raises(ValueError, match="not a plain file name"):
        to_latex(Table("x}\\input{y", "t", [Column("a", "A")], []))


def test_markdown_and_csv_tables_escape_titles_cells_and_notes() -> None:
    table = Table("t", H.IMG_MD, [Column("a", H.SCRIPT, TEXT)], [{"a": H.JS_LINK}], [H.IMG_HTML])
    html = MD.render(to_markdown(table))
    assert not re.search(r"<(img|a|script)\b", html)
    title_line = render_all([Table("t", "x\n=HYPERLINK(1)", [Column("a", "A")], [])], "csv").splitlines()[0]
    assert title_line == "# t: x =HYPERLINK(1)"  # the title stays on the comment line


def test_terminal_and_chart_text_show_controls_instead_of_sending_them() -> None:
    assert terminal_text(H.OSC + H.RLO + "\nx") == "<U+001B>]0;owned<U+0007><U+202E><U+000A>x"
    assert visible_bidi("a\u2066\u200fb\u061c") == "a<U+2066><U+200F>b<U+061C>"
    assert chart_text('<a href="http://x">y</a> $x$') == "&lt;a href=\"http://x\"&gt;y&lt;/a&gt; &#36;x&#36;"
    out = io.StringIO()
    stream = InertStream(out)
    stream.write("\r[##  ] 50% " + H.OSC + "\n")
    assert out.getvalue() == "\r[##  ] 50% <U+001B>]0;owned<U+0007>\n"  # progress CR and newline kept
