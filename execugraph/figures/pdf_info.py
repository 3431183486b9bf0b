"""A PDF's document title, set by an incremental update (chromium titles every kaleido PDF "Kaleido-fier").

Nothing in the file is rewritten: a new Info object, a one-entry xref section and a trailer that points back
to the old one (`/Prev`) are appended, as PDF 1.7 section 7.5.6 allows, so every existing byte offset stays
valid. A file this cannot read (no classic trailer, e.g. an xref stream) is returned unchanged.
"""

from __future__ import annotations

import re

_STARTXREF = re.compile(rb"startxref\s+(\d+)\s+%%EOF\s*$")
_TRAILER = re.compile(rb"trailer\s*<<(.*?)>>\s*startxref", re.S)
_SIZE = re.compile(rb"/Size\s+(\d+)")
_ROOT = re.compile(rb"/Root\s+(\d+\s+\d+\s+R)")
_ID = re.compile(rb"/ID\s*(\[[^\]]*\])")


def pdf_text(text: str) -> bytes:
    """`text` as a PDF text string: UTF-16BE with its byte-order mark, in hex (no escaping to get wrong)."""
    return b"<FEFF" + text.encode("utf-16-be").hex().upper().encode() + b">"


def set_title(pdf: bytes, title: str, *, creator: str = "ExecuGraph") -> bytes:
    """`pdf` with its Info dictionary's /Title (and /Creator) set; unchanged when its trailer cannot be read."""
    end = _STARTXREF.search(pdf)
    trailers = _TRAILER.findall(pdf)
    if end is None or not trailers:
        return pdf
    trailer = trailers[-1]
    size, root = _SIZE.search(trailer), _ROOT.search(trailer)
    if size is None or root is None:
        return pdf
    number = int(size.group(1))
    body = pdf if pdf.endswith(b"\n") else pdf + b"\n"
    offset = len(body)
    info = (b"%d 0 obj\n<</Title " % number + pdf_text(title) + b" /Creator " + pdf_text(creator)
            + b">>\nendobj\n")
    xref_at = offset + len(info)
    found_id = _ID.search(trailer)
    new_trailer = (b"<</Size %d /Root " % (number + 1) + root.group(1) + b" /Info %d 0 R /Prev " % number
                   + end.group(1) + (b" /ID " + found_id.group(1) if found_id else b"") + b">>")
    xref = b"xref\n%d 1\n%010d 00000 n \ntrailer\n" % (number, offset) + new_trailer
    return body + info + xref + b"\nstartxref\n%d\n%%%%EOF\n" % xref_at


def read_title(pdf: bytes) -> str | None:
    """The /Title the last trailer's Info dictionary names (hex UTF-16 or a plain literal), or None."""
    trailers = _TRAILER.findall(pdf)
    info = re.search(rb"/Info\s+(\d+)\s+0\s+R", trailers[-1]) if trailers else None
    if info is None:
        return None
    objects = re.findall(rb"(?<!\d)" + info.group(1) + rb"\s+0\s+obj\s*<<(.*?)>>\s*endobj", pdf, re.S)
    if not objects:
        return None
    hexed = re.search(rb"/Title\s*<FEFF([0-9A-Fa-f]*)>", objects[-1])
    if hexed:
        return bytes.fromhex(hexed.group(1).decode()).decode("utf-16-be")
    plain = re.search(rb"/Title\s*\((.*?)\)\s*(?:/|$)", objects[-1], re.S)
    return plain.group(1).decode("latin-1") if plain else None
