"""The reproduction report as a list of blocks, written once and rendered as Markdown or self-contained HTML.

Both renderings come from the same blocks, so report.md and report.html say the
same thing; tables come from `stats.tables.Table` (the numbers the LaTeX and CSV
files hold, rounded the same way), and figures are embedded in the HTML as
SVG data URIs (the file needs nothing beside it) and linked from the Markdown.
Text is plain text in both: every character of it is escaped for the target
(`execugraph.safety.inert_text`), only the `**bold**` spans the report writes are kept.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field
from urllib.parse import quote

from execugraph.safety.inert_text import md_text, one_line
from execugraph.stats.table_format import to_markdown
from execugraph.stats.tables import Table


@dataclass
class Heading:
    text: str
    level: int = 2


@dataclass
class Paragraph:
    text: str  # plain text; **bold** spans are kept in both renderings


@dataclass
class Bullets:
    items: list[str]
    kind: str = ""  # "warning" marks a list of warnings (styled in HTML)
    plain: bool = False  # untrusted text (flip reasons): not even `**bold**` is interpreted


@dataclass
class TableBlock:
    table: Table


@dataclass
class Figure:
    name: str  # file name under figures/
    caption: str
    svg: str | None = None  # the rendered image; None when it could not be rendered


Block = Heading | Paragraph | Bullets | TableBlock | Figure


@dataclass
class Document:
    title: str
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block) -> None:
        self.blocks.extend(blocks)


_BOLD = re.compile(r"\*\*(.+?)\*\*")


def _md_inline(text: str) -> str:
    """Plain text as literal Markdown, its `**bold**` spans kept bold."""
    parts = _BOLD.split(text)  # plain, bold, plain, ...
    return "".join(f"**{md_text(p)}**" if i % 2 else md_text(p) for i, p in enumerate(parts)).strip()


def _md_plain(text: str) -> str:
    """Untrusted text as literal Markdown; `<` as an entity, so no raw tag text survives even unrendered."""
    return md_text(text).strip().replace("\\<", "&lt;")


def to_markdown_text(doc: Document) -> str:
    """The document as GitHub-flavoured Markdown (figures linked as figures/<name>)."""
    out = [f"# {_md_inline(doc.title)}", ""]
    for block in doc.blocks:
        if isinstance(block, Heading):
            out += ["#" * block.level + " " + _md_inline(block.text), ""]
        elif isinstance(block, Paragraph):
            out += [_md_inline(block.text), ""]
        elif isinstance(block, Bullets):
            out += [f"- {_md_plain(item) if block.plain else _md_inline(item)}" for item in block.items] + [""]
        elif isinstance(block, TableBlock):
            out += [to_markdown(block.table).rstrip(), ""]
        elif isinstance(block, Figure):
            if block.svg is None:
                out += [f"*{md_text(block.caption)}* (not rendered: see the warnings)", ""]
            else:
                out += [f"![{md_text(block.caption)}](figures/{quote(block.name)})", ""]
    return "\n".join(out).rstrip() + "\n"


STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#1f2328;line-height:1.45}
h1{font-size:1.7em;border-bottom:1px solid #d0d7de;padding-bottom:.3em}h2{margin-top:1.8em;
border-bottom:1px solid #d0d7de;padding-bottom:.2em}h3{margin-top:1.4em}
table{border-collapse:collapse;margin:.6em 0;font-size:.88em}th,td{border:1px solid #d0d7de;padding:.25em .55em}
th{background:#f6f8fa;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
caption{text-align:left;font-weight:600;padding:.3em 0}p.note{font-size:.85em;color:#57606a;margin:.2em 0}
ul.warning{background:#fff8c5;border:1px solid #d4a72c;border-radius:6px;padding:.6em 1.6em}
figure{margin:1em 0}figure img{max-width:100%;height:auto}figcaption{font-size:.9em;color:#57606a}
"""


def _text(text: str) -> str:
    """Escaped for HTML, on one line, bidirectional and other controls shown as `<U+202E>`."""
    return html.escape(one_line(text))


def _inline(text: str) -> str:
    return _BOLD.sub(r"<strong>\1</strong>", _text(text))


def _table_html(table: Table) -> str:
    head = "".join(f"<th>{_text(c.title)}</th>" for c in table.columns)
    body = []
    for row in table.display_rows():
        cells = "".join(
            f'<td class="num">{_text(row[c.title])}</td>' if c.numeric else f"<td>{_text(row[c.title])}</td>"
            for c in table.columns
        )
        body.append(f"<tr>{cells}</tr>")
    notes = "".join(f'<p class="note">{_text(n)}</p>' for n in table.notes)
    return (f'<table id="{_text(table.key)}"><caption>{_text(table.title)}</caption>'
            f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>{notes}")


def _svg_image(svg: str, alt: str) -> str:
    """An SVG as an <img> with a data: URI: embedded, and its ids and styles kept apart from the page's."""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return f'<img alt="{_text(alt)}" src="data:image/svg+xml;base64,{data}">'


def to_html_text(doc: Document) -> str:
    """The document as one self-contained HTML file: inline CSS, figures as SVG data URIs, no external resource."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_text(doc.title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{_inline(doc.title)}</h1>",
    ]
    for block in doc.blocks:
        if isinstance(block, Heading):
            parts.append(f"<h{block.level}>{_inline(block.text)}</h{block.level}>")
        elif isinstance(block, Paragraph):
            parts.append(f"<p>{_inline(block.text)}</p>")
        elif isinstance(block, Bullets):
            cls = f' class="{block.kind}"' if block.kind else ""
            show = _text if block.plain else _inline
            parts.append(f"<ul{cls}>" + "".join(f"<li>{show(i)}</li>" for i in block.items) + "</ul>")
        elif isinstance(block, TableBlock):
            parts.append(_table_html(block.table))
        elif isinstance(block, Figure):
            image = _svg_image(block.svg, block.caption) if block.svg else "<p><em>not rendered: see the warnings</em></p>"
            parts.append(f"<figure>{image}<figcaption>{_text(block.caption)}</figcaption></figure>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
