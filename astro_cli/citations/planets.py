"""A planet by its letter: tables whose columns or rows are a system's planets, prose that says "planet b".

A paper on one system writes its planets by letter alone (`Source | Quantity | b | c | ... | h`, a row `b | 1 |
45`, "planets b, c and h"), so `TRAPPIST-1 b` was "not named" by the table that holds its values. A planet `HOST
x` is named by a passage that labels `x` as a planet (a header cell `x` in a run of planet letters, a row label
`x`, `planet x`, a list `b, c, d`) and names the host or no other system (the cited paper's own system: a passage
naming another designation must name this host). Its values must then stand in that planet's column or row:
`planet_cells` gives those cells, read as columns.py reads a PDF's run of cells (a row's label glued to the cell
before it).
"""

from __future__ import annotations

import re

_LETTERS = "bcdefgh"
_PLANET_NAME = re.compile(r"^(?P<host>.*\d)\s?(?P<letter>[b-h])$")
_IN_PROSE = re.compile(r"\bplanets?\s+(?P<list>[b-h](?:(?:\s*,\s*|\s*,?\s+and\s+|\s*[-–]\s*)[b-h])*)\b(?![\w-])")
_LABEL_END = re.compile(r"(?:^|\s)(?P<letter>[b-h])\s*$")
# a planet's quantity as a claim words it, and as a table's row label writes its symbol
_QUANTITIES = (
    (r"\bradius|\bradii|\bR_?⊕|\bEarth radii", r"^R\b|^R_p\b(?!/)"),
    (r"\bmass(?!\s+ratio)|\bM_?⊕|\bEarth masses", r"^M\b|^M_p\b(?!M)"),
    (r"\bdensit", r"^ρ"), (r"\bgravit", r"^g\b"), (r"\bescape\s+velocit", r"v_\{?esc"),
    (r"\binsolation|\birradiat|\bflux", r"^S\b"), (r"\bsemi-?major|\bAU\b|\borbits?\s+(?:at|about)", r"^a\b(?!/)"),
    (r"\bduration|\blasts?\b", r"^T\b"), (r"\bingress|\begress", r"^τ"), (r"\binclin", r"^I\b"),
    (r"\bdepth", r"^Depth"), (r"\bimpact", r"^b/R"), (r"\bsemi-?amplitude", r"^K_p"),
)


def row_fits(claim: str, label: str) -> bool:
    """Whether a row (by its label) can hold a value of the claim: a row of a known quantity holds only a claim
    naming that quantity, or naming none of the known ones (the transposed rule of columns.py)."""
    label = label.rsplit("\n", 1)[-1].strip()
    rows = [i for i, (_, symbol) in enumerate(_QUANTITIES) if re.search(symbol, label)]
    named = [i for i, (words, _) in enumerate(_QUANTITIES) if re.search(words, claim, re.IGNORECASE)]
    return not rows or not named or bool(set(rows) & set(named))


_PLANET_WORD = re.compile(r"\bplanets?\s+(?P<letter>[b-h])(?:'s)?(?![\w-])", re.IGNORECASE)


def planet_words(claim: str) -> list[str]:
    """The letters of the planets a claim names in words, without a designation (`planet b's mass`)."""
    return list(dict.fromkeys(m.group("letter").lower() for m in _PLANET_WORD.finditer(claim)))


def split_planet(name: str) -> tuple[str, str] | None:
    """(host, letter) of a planet's designation (`TRAPPIST-1 b`, `Kepler-10c`); None for any other name."""
    match = _PLANET_NAME.match(name.strip())
    return (match.group("host"), match.group("letter")) if match else None


def _header_run(cells: list[str]) -> tuple[int, int] | None:
    """(index of the first, count) of the longest run of cells that are planet letters in order (`b | c | d`)."""
    best: tuple[int, int] | None = None
    i = 0
    while i < len(cells):
        j = i
        while j < len(cells) and (cells[j].split() or [""])[0] == _LETTERS[min(j - i, len(_LETTERS) - 1)] and (
                j - i < len(_LETTERS)) and (len(cells[j].split()) == 1 or j > i):
            j += 1
        if j - i >= 2 and (best is None or j - i > best[1]):
            best = (i, j - i)
        i = max(j, i + 1)
    return best


def labels(passage: str) -> set[str]:
    """The letters the passage labels as planets."""
    found: set[str] = set()
    for match in _IN_PROSE.finditer(passage):
        found |= set(re.findall(r"[b-h]", match.group("list")))
    if passage.count("|") >= 3:
        cells = passage.split("|")
        run = _header_run(cells)
        if run is not None:
            found |= set(_LETTERS[:run[1]])
        found |= {letter for cell in cells if (letter := _label(cell)) is not None}
    return found


def planet_cells(letter: str, passage: str) -> list[tuple[str, str]] | None:
    """The cells of planet `letter` in the passage's table, each with its row's label (`R [R_⊕]`, empty in a table
    whose rows are the planets): its column, or its row; None when no table has it."""
    cells = passage.split("|")
    if len(cells) < 4:
        return None
    run = _header_run(cells)
    if run is None:
        row = _row(letter, cells)
        return [("", cell) for cell in row] if row else None
    first, count = run
    column = _LETTERS.index(letter)
    if column >= count:
        return None
    leading = 1  # the header cells before the letters (`Source | Quantity`): a row's label cells
    while first - leading - 1 >= 0 and (before := cells[first - leading - 1]).strip() and not re.search(
            r"\d", before.rsplit("\n", 1)[-1]):
        leading += 1
        if "\n" in before:  # the line (or the caption) ends before the header's first cell
            break
    period = count + leading - 1
    out = []
    for start in range(first + count - 1, len(cells) - count, period):  # the cell that ends with the row's label
        if start + leading + column >= len(cells):
            break
        # the first row's label is glued after the header's last letter
        glued = " ".join(cells[start].split()[1:]) if start == first + count - 1 else cells[start]
        label = " ".join([_tail(glued)] + [c.strip() for c in cells[start + 1:start + leading]])
        out.append((label, _scaled(cells[start + leading + column], label)))
    return out or None


def _scaled(cell: str, label: str) -> str:
    """The cell's value (the next row's label cut off) with the scale and unit of its row's label: `6.189± 0.053`
    under `a [10^{-2} AU]` is 6.189 × 10^-2 AU; `382.0` under `K_p [cm/sec]` is 382.0 cm/sec."""
    value = re.match(r"\s*([-+−\d.][^A-Za-z\u0370-\u03ff\[\n]*[\d}])", cell)
    bracket = re.search(r"\[\s*(?:(?P<exp>10\s*\^\s*\{?\s*[-−]?\s*\d+\s*\}?)\s*)?(?P<unit>[^\]]*)\]\s*$", label)
    if value is None or bracket is None:
        return cell
    scale = f" × {bracket.group('exp')}" if bracket.group("exp") else ""
    core = value.group(1)
    return f"({core}){scale} {bracket.group('unit').strip()}" if scale else f"{core} {bracket.group('unit').strip()}"


def _tail(cell: str) -> str:
    """The row label glued after the last value (or the last header letter) of a PDF's run of cells."""
    text = cell.strip()
    core = re.sub(r"\[[^\]]*\]\s*$", "", text)
    unit = text[len(core):]
    found = re.search(r"(?:^|[\d}\s])\s(?P<label>[^\d±{}]+?)\s*$", " " + core)
    return ((found.group("label") if found else "") + " " + unit).strip()


def _row(letter: str, cells: list[str]) -> list[str] | None:
    """The cells from the label `letter` (a cell of its own, or glued after the last value of the row before) to
    the next planet's label."""
    out: list[str] = []
    inside = False
    for cell in cells:
        label = _label(cell)
        if label is not None or (inside and "\n" in cell):
            if inside:
                out.append(cell.rsplit("\n", 1)[0] if "\n" in cell else cell.rsplit(None, 1)[0])
                break
            inside = label == letter
            continue
        if inside:
            out.append(cell)
    return out or None


def _label(cell: str) -> str | None:
    """The planet letter a cell ends with as a row's label: the cell alone (`b`), the last line of it
    (`Total (N_i)\\nb`), or after the last value of the row before (`0.00244 c`)."""
    match = _LABEL_END.search(cell)
    if match is None:
        return None
    tokens = cell.split()
    if len(tokens) == 1 or cell.rstrip().rsplit("\n", 1)[-1].strip() == match.group("letter") or re.match(
            r"[-+−\d.]", tokens[0]):
        return match.group("letter")
    return None
