"""The rows of the library's tables that belong to an object the question names.

Recorded (issue 48, Qwen2.5-Coder-1.5B): asked for the day-side temperature of HD 189733b, the small
model ran rag_search; the value (T_d=1605(52) K) sits in HD 189733b's row of Table 1 of 1001.0012,
and the passage holding that row ranked below the prose that talks of day-side temperatures, so
the value never reached the answer. A question about one object (a planet, a star: a name with
digits in it) is answered by that object's row. So rag_search also looks the name up on its own
and puts the rows that start with it first, under their table's column header, in the same frame
(with the passage's handle to cite) as every other passage. The ranking itself is not touched.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from astro_cli.research.textblock import frame

if TYPE_CHECKING:
    from astro_cli.research.records import Hit, Passage

# An object's name: a word (catalogue or survey: HD, TrES, WASP, HAT-P, OGLE-TR, Kepler) joined to
# a number by a space or a hyphen, the number perhaps with a letter after it (189733b, 12b).
_NAME = re.compile(r"(?<![\w.-])([A-Za-z][A-Za-z]{0,9}(?:-[A-Za-z]{1,4})*)([- ])(\d[\w.+]*)(?![\w-])")
CELL = " | "  # how the readers write a table's cells on one line (research/text/)
MAX_NAMES = 2
MAX_ROW_LINES = 12  # the object's line and its continuation lines (further wavelengths, epochs)
MAX_ROWS = 4


def object_names(question: str) -> list[str]:
    """The objects a question names, in order, at most MAX_NAMES: a name joined by a hyphen
    (TrES-1b, HAT-P-7b), or one whose word has two capitals or whose number ends in a letter
    (HD 189733b, GJ 1214). "Table 1", "page 7" or "section 4" are not objects."""
    names: list[str] = []
    for match in _NAME.finditer(question):
        word, joint, number = match.groups()
        capitals = sum(ch.isupper() for ch in word)
        if joint == "-" or capitals >= 2 or number[-1].isalpha():
            name = match.group(0)
            if _key(name) not in {_key(n) for n in names}:
                names.append(name)
    return names[:MAX_NAMES]


def _key(text: str) -> str:
    return re.sub(r"[\s-]+", "", text).casefold()


def _starts_with(line: str, name: str) -> bool:
    """The line's first cell is the object (a reference mark such as `[8]` may follow its name)."""
    first = _key(line.split("|", 1)[0])
    wanted = _key(name)
    return first.startswith(wanted) and not first[len(wanted):len(wanted) + 1].isalnum()


def rows_naming(text: str, name: str) -> list[str]:
    """The lines of a table passage that hold `name`'s row: the line whose first cell is the name, its
    continuation lines (first cell not a word), and the column header above it; [] when none."""
    lines = text.splitlines()
    header = next((line for line in lines if CELL in line), "")
    caption = next((line for line in lines if line.strip() and CELL not in line), "")
    for n, line in enumerate(lines):
        if CELL in line and _starts_with(line, name):
            picked = [line]
            for more in lines[n + 1:n + MAX_ROW_LINES]:
                if CELL not in more or re.match(r"\s*[A-Za-z]", more):
                    break
                picked.append(more)
            head = [h for h in (caption, header) if h and h != line]
            return [*head, *picked]
    return []


def rows_block(names: Sequence[str], search: Callable[[str], list[Hit]]) -> tuple[str, list[Passage]]:
    """The rows of the library's tables for each object named, framed like rag_search's passages,
    with one line saying what they are ("" when no table has a row for them), and each frame as the
    passage it showed. `search` gives a name's best passages (rag_search's own search, same papers)."""
    blocks: list[str] = []
    passages: list[Passage] = []
    seen: set[tuple[int, str]] = set()
    for name in names:
        for hit in search(name):
            if len(blocks) >= MAX_ROWS:
                break
            rows = rows_naming(hit.text, name) if hit.kind == "paper" else []
            if rows and (hit.chunk_id, _key(name)) not in seen:
                seen.add((hit.chunk_id, _key(name)))
                blocks.append(frame("\n".join(rows), hit.source, hit.section, hit.page, kind=hit.kind,
                                    handle=hit.handle))
                shown = hit.passage()
                if shown is not None:
                    passages.append(replace(shown, text="\n".join(rows)))
    if not blocks:
        return "", []
    named = " and ".join(names)
    return (f"Table rows for {named} (the row, its continuation lines and the table's column header; cite the "
            "passage's handle):\n" + "\n".join(blocks)), passages
