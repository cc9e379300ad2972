"""Text that survives BibTeX and LaTeX: titles with their math, names with their parts.

- Math stays math: `$...$`, `\\(...\\)` and `\\[...\\]` pass through untouched (`H$_2$O` must not
  become `H$\\_2$O`); outside math, `& % # _` are escaped, `^ < >` made printable, non-ASCII
  letters written as LaTeX accents (`Tešanović` -> `Te{\\v{s}}anovi{\\'c}`) so classic 8-bit
  BibTeX abbreviates and sorts them, and braces that do not balance are dropped.
- Names go through nameparser (a maintained parser of human names), not string splitting:
  `Robert C. Kennicutt Jr.` is last name Kennicutt, suffix Jr.; `Adrian Del Maestro` keeps
  `Del Maestro` as his last name; a corporate author (`Gaia Collaboration`) is braced whole.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

MATH = re.compile(r"(?<!\\)\$\$.+?(?<!\\)\$\$|(?<!\\)\$.+?(?<!\\)\$|\\\(.+?\\\)|\\\[.+?\\\]", re.DOTALL)
SPECIAL = re.compile(r"(?<!\\)([&%#_])")
LONE_DOLLAR = re.compile(r"(?<!\\)\$")
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
CORPORATE = re.compile(
    r"\b(collaboration|consortium|team|survey|group|project|observatory|telescope|mission|council|agency|"
    r"institute|university|laboratory|centre|center|committee|network|society|association|programme|program|"
    r"array|partnership|collab\.)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def _encoder() -> Any:
    from pylatexenc.latexencode import UnicodeToLatexEncoder

    return UnicodeToLatexEncoder(non_ascii_only=True, replacement_latex_protection="braces-all",
                                 unknown_char_policy="keep", unknown_char_warning=False)


def _plain(text: str) -> str:
    """Text outside math: LaTeX specials escaped, non-ASCII as LaTeX, lone `$` escaped."""
    text = SPECIAL.sub(r"\\\1", text)
    text = LONE_DOLLAR.sub(r"\\$", text)
    text = re.sub(r"(?<!\\)\^", r"\\textasciicircum{}", text)
    text = text.replace("<", "$<$").replace(">", "$>$")
    return _encoder().unicode_to_latex(text) if not text.isascii() else text


def _balanced(text: str) -> bool:
    depth = 0
    for char in re.sub(r"\\[{}]", "", text):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def latex_text(text: str | None) -> str:
    """A title, journal or name as BibTeX field text: math kept as written, the rest made safe."""
    flat = " ".join(CONTROL.sub("", str(text or "")).split())  # no terminal escape survives into a .bib file
    parts: list[str] = []
    last = 0
    for match in MATH.finditer(flat):
        parts.append(_plain(flat[last:match.start()]))
        parts.append(match.group(0))
        last = match.end()
    parts.append(_plain(flat[last:]))
    out = "".join(parts)
    if not _balanced(out):
        out = "".join(part if i % 2 else re.sub(r"(?<!\\)[{}]", "", part) for i, part in enumerate(parts))
    return out


# --- names -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PersonName:
    """One author: `last` includes its particles (van, de, Del); `corporate` names are kept whole."""

    last: str
    first: str = ""
    suffix: str = ""
    corporate: bool = False

    def bibtex(self) -> str:
        """`{Kennicutt}, Jr., Robert C.` (BibTeX's von-Last, Jr, First form) or `{Gaia Collaboration}`."""
        if self.corporate:
            return "{" + latex_text(self.last) + "}"
        parts = ["{" + latex_text(self.last) + "}"]  # `{}` when ADS knows no surname
        if self.suffix:
            parts.append(latex_text(self.suffix))
        if self.first:
            parts.append(latex_text(self.first))
        return ", ".join(parts)


def is_corporate(name: str) -> bool:
    """`Gaia Collaboration`, `The LIGO Scientific Collaboration`, `Planck Team`: an organisation."""
    return "," not in name and bool(CORPORATE.search(name))


def parse_name(name: str) -> PersonName:
    """An author as arXiv ('Robert C. Kennicutt Jr.') or ADS ('Kennicutt, Robert C., Jr.') writes it."""
    flat = " ".join(str(name).split()).strip()
    if flat.startswith(","):  # ADS's ', . . .' (no surname): kept as ADS writes it, `{}, . . .`
        return PersonName(last="", first=flat.strip(" ,"))
    flat = flat.strip(" ,")
    if not flat:
        return PersonName(last="Anonymous")
    if is_corporate(flat):
        return PersonName(last=flat, corporate=True)
    if "," in flat:  # ADS's form, 'Last, First' or 'Last, First, Jr.': split as ADS's own export does
        last, _, rest = (part.strip() for part in flat.partition(","))
        first, _, suffix = (part.strip() for part in rest.partition(","))
        return PersonName(last=last or "Anonymous", first=first, suffix=suffix)
    from nameparser import HumanName

    human = HumanName(flat)
    last = human.last or flat
    first = " ".join(part for part in (human.first, human.middle) if part)
    if not human.last and human.first:  # a single word ("Plato"): it is the last name
        last, first = human.first, ""
    return PersonName(last=last, first=first, suffix=human.suffix)


def author_field(authors: list[str]) -> str:
    """`A and B and others`: a trailing 'others' is BibTeX's own word for the authors not listed."""
    return " and ".join("others" if author == "others" else parse_name(author).bibtex() for author in authors)


def surname(name: str) -> str:
    return parse_name(name).last


def ascii_word(text: str) -> str:
    """'Del Maestro' -> 'DelMaestro', 'Tešanović' -> 'Tesanovic': for citation keys."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9]", "", plain)
