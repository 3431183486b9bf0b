"""Data-derived text made inert for each place it is shown: Markdown, CSV, LaTeX, charts, a terminal.

Imported results are somebody else's text (folder names, run titles, problem ids,
categories, model names, family names), so every writer passes each such string
through the one function for its target here: a name is shown, never run, fetched
or typed into the reader's terminal. Everywhere, bidirectional controls (which
reorder what is displayed around them) and control characters are shown as
`<U+202E>`; line breaks become spaces where a line break is syntax.
"""

from __future__ import annotations

import re
import unicodedata

BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_LINE_BREAK = re.compile(r"\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]")
# ASCII punctuation that starts a Markdown construct anywhere in a line (emphasis, code, links and images,
# HTML and autolinks, entities, tables, strikethrough, math), escaped wherever it stands ...
# (`_` only where it could open or close emphasis: not between two letters or digits, as in e1_mf; `&` only
# where it could start an entity).
MD_SPECIALS = frozenset("\\`*[]<|~$")
# ... and what starts one only at the beginning of a line (headings, lists, quotes, breaks), escaped there.
_LINE_START = re.compile(r"^( *)((?:#{1,6}|[+-]|\d{1,9}[.)])(?=[ \t]|$)|[-=](?=[-= ]*$)|>)")
_HEADING_CLOSE = re.compile(r"(\s)(#+)$")
_AUTOLINK = re.compile(r"(?i)(?<=:)(?=//)|(?<=www)(?=\\?\.)|(?<=\w@)(?=[\w-]+\.\w)")
WORD_JOINER = "\u2060"  # invisible: keeps `http://`, `www.` and `a@b.c` from being linked by GFM renderers
CSV_RISKY_START = ("=", "+", "-", "@", "\t", "\r")
_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "|": r"$|$",
    "<": r"$<$",
    ">": r"$>$",
    "·": r"$\cdot$",
    "–": "--",
    "—": "---",
    "†": r"$^\dagger$",
}


def codepoint(ch: str) -> str:
    """`<U+202E>`: how a character that must not act is shown."""
    return f"<U+{ord(ch):04X}>"


def _acts(ch: str) -> bool:
    """A control character (C0, DEL, C1), a line/paragraph separator, or a bidirectional control."""
    return ch in BIDI_CONTROLS or unicodedata.category(ch) in ("Cc", "Zl", "Zp")


def visible_bidi(text: str) -> str:
    """Bidirectional controls (U+202A-E, U+2066-9, U+200E/F, U+061C) shown as `<U+202E>`; nothing else changed."""
    return "".join(codepoint(ch) if ch in BIDI_CONTROLS else ch for ch in text)


def visible_controls(text: str, keep: str = "") -> str:
    """Every control character and bidirectional control shown as `<U+001B>`, except those in `keep`."""
    return "".join(codepoint(ch) if ch not in keep and _acts(ch) else ch for ch in text)


def one_line(text: object) -> str:
    """The text on one line: each line break a space, tabs spaces, every other control shown as `<U+001B>`."""
    return visible_controls(_LINE_BREAK.sub(" ", str(text)).replace("\t", " "))


def terminal_text(text: object) -> str:
    """Safe to print: no escape sequence, no line break, no bidi control from the data reaches the terminal."""
    return visible_controls(str(text))


def _md_special(text: str, i: int) -> bool:
    ch = text[i]
    if ch == "_":
        return not (0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum())
    if ch == "&":
        return i < len(text) - 1 and (text[i + 1].isalnum() or text[i + 1] == "#")
    return ch in MD_SPECIALS


def md_text(text: object) -> str:
    """Literal text in Markdown (CommonMark, GFM, Streamlit): every construct escaped, so it renders as written.

    Names stay readable (`e1_mf`, `oneshot #1` are written as they are); URLs are not linked.
    """
    line = one_line(text)
    escaped = "".join("\\" + ch if _md_special(line, i) else ch for i, ch in enumerate(line))
    escaped = _LINE_START.sub(lambda m: m.group(1) + m.group(2)[:-1] + "\\" + m.group(2)[-1], escaped)
    escaped = _HEADING_CLOSE.sub(lambda m: m.group(1) + "\\#" * len(m.group(2)), escaped)
    return _AUTOLINK.sub(WORD_JOINER, escaped)


# A code span as CommonMark reads it: a whole run of backticks (not escaped) closed by a run of the same length;
# one holding `|` is not trusted (GFM splits table cells on it first). Every other backtick is escaped, so the
# spans kept are exactly the spans a renderer sees.
_CODE_SPAN = re.compile(r"(?<![`\\])(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# A fence at the start of a line is a top-level fence whatever came before; its end is a line of its own.
_FENCE = re.compile(r"(`{3,}(?!.*`)|~{3,})")  # a backtick fence's info string holds no backtick
_RICH_SPECIALS = frozenset("\\`[]<$")


def _defuse(line: str) -> str:
    """Outside code spans: no link, image, reference definition, raw HTML, autolink, code or math."""
    out, last = [], 0
    for span in _CODE_SPAN.finditer(line):
        if "|" in span.group(0):
            continue
        out += [_defuse_plain(line[last:span.start()]), span.group(0)]
        last = span.end()
    out.append(_defuse_plain(line[last:]))
    return "".join(out)


def _defuse_plain(text: str) -> str:
    escaped = "".join("\\" + ch if ch in _RICH_SPECIALS else ch for ch in text)
    return _AUTOLINK.sub(WORD_JOINER, escaped)


def md_rich(text: object) -> str:
    """A model's Markdown (a plan, an explanation), for a Markdown element of its own: kept formatted but inert.

    Emphasis, lists, code spans and fenced code stay; links, images, raw HTML, autolinks and math are shown
    as text. Only where the text starts a block (never after a list marker or inline: use `md_text` there).
    """
    lines, fence = [], ""
    for line in visible_controls(str(text), keep="\n\t").split("\n"):
        marker = _FENCE.match(line)
        if fence:
            closing = line.strip()  # closed at any indentation: never later than a renderer closes it
            if len(closing) >= len(fence) and not closing.strip(fence[0]):
                fence = ""
            lines.append(line)
        elif marker and "|" not in line:  # with a pipe, GFM may read the line as a table's header instead
            fence = marker.group(1)
            lines.append(line)
        else:
            lines.append(_defuse(line))
    return "\n".join(lines)


def csv_cell(text: object) -> str:
    """A text cell a spreadsheet shows as text: one starting with = + - @, a tab or CR gets a leading `'`.

    Only for text cells: numbers (a plain -0.25) are written as numbers by the caller.
    """
    value = str(text)
    risky = value.lstrip(" ").startswith(CSV_RISKY_START)
    return ("'" if risky else "") + visible_controls(value, keep="\n")


def latex_text(text: object) -> str:
    """Text safe anywhere in a LaTeX file, comments included: on one line, every special escaped."""
    return "".join(_LATEX.get(ch, ch) for ch in one_line(text))


def chart_text(text: object) -> str:
    """Text for a plotly label, name or title: its pseudo-HTML (`<a href>`, `<br>`) and `$math$` shown as written."""
    value = one_line(text)
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("$", "&#36;")
