"""The chunks of a PDF's tables: one row a line, every chunk headed by its table's caption and
column header.

Read as running text, a table became one line of cells from many rows, and a chunk cut from its
middle had no header: asked for HD 189733b's day-side temperature, a small model was given
`... HD 189733b[8] | 1537(16) | 2.15(32) | < 4.0 × 10^{−4}(1σ) | T_d=1605(52) K 3.6(0.75) | ...`
and could not tell which number was which (issue 48). Rows stay lines here, a chunk ends at a row's
end, and a chunk that continues a table repeats the caption and the header row first. A table whose
caption is printed again on its next page (1001.0012's `TABLE 1` on p. 12) goes on under its first
header: the repeated title is dropped, and the page's first row stays a row (taken for the header, it
was repeated as the header of every chunk of that page).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

CELL = " | "  # how pdftext.py joins the cells of a row
_CAPTION = re.compile(r"^(?:TABLE|Table)\s+([A-Z0-9]+)\b")


@dataclass(frozen=True)
class TablePiece:
    text: str
    page: int | None


def table_pieces(lines: list[Any], size: int) -> list[TablePiece]:
    """`lines` (pdftext.py's layout lines of the Tables section) as pieces of about `size` characters."""
    pieces: list[TablePiece] = []
    caption: list[str] = []
    header = ""
    body: list[str] = []
    page: int | None = None
    lead = ""  # what a continuing piece starts with: the caption and the header row
    label = ""  # the table's number, `1` of `TABLE 1`
    again = False  # its caption printed again (a new page): the title and the header may repeat

    def flush() -> None:
        nonlocal body, page
        if body:
            pieces.append(TablePiece("\n".join(body), page))
        body, page = [], None

    for line in lines:
        text = str(line.text).strip()
        if not text:
            continue
        named = _CAPTION.match(text)
        if named and header and named.group(1) == label and (text == caption[0] or "continued" in text.lower()):
            flush()
            again = True
            continue
        if again and (text in caption or text == header):
            continue
        again = False
        if named:
            flush()
            caption, header, lead, label = [text], "", "", named.group(1)
        elif caption and not header and CELL not in text:
            caption.append(text)  # the caption's title lines
        elif caption and not header:
            header = text
            lead = f"{' '.join(caption)} (continued)\n{header}"
            body = [*caption, header] if not body else [*body, header]
            page = page if page is not None else line.page
            continue
        if body and len("\n".join([*body, text])) > size:
            flush()
            if lead:
                body = [lead]
        if not body and lead:
            body = [lead]
        if page is None:
            page = line.page
        body.append(text)
    flush()
    return pieces
