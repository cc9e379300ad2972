"""Authors' names with the accents the paper itself prints, when arXiv's metadata lost them.

arXiv lists `Zlatko Tesanovic`; the paper's title page (parsed from its PDF, where TeX's accents
are composed back, or from its LaTeX) reads `Zlatko Tešanović`. A name word written in plain ASCII
takes the accented spelling when the paper's opening text (its title page) has exactly one
accented word that folds to it (`Tešanović` folds to `tesanovic`); two different spellings, the
plain spelling printed as well (another author, `B. Muller` beside `A. Müller`), or none, leave
the name as arXiv gave it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from astro_cli.research.text.pdfchars import fold

if TYPE_CHECKING:
    from astro_cli.research.library.papers import LibraryCore
    from astro_cli.research.records import Paper

OPENING_CHARS = 8000  # the title page: the author list, affiliations, the abstract
WORD = re.compile(r"[^\W\d_][^\W\d_'’-]*(?:[-'’][^\W\d_]+)*")


def accented_words(text: str) -> dict[str, set[str]]:
    """{folded word: the non-ASCII spellings of it in `text`}."""
    found: dict[str, set[str]] = {}
    for match in WORD.finditer(text):
        word = match.group(0)
        if not word.isascii():
            found.setdefault(fold(word), set()).add(word)
    return found


def restore(authors: list[str], text: str) -> list[str]:
    """`authors` with each ASCII name word replaced by its one accented spelling in `text`."""
    opening = text[:OPENING_CHARS]
    spellings = accented_words(opening)
    if not spellings:
        return authors
    plain = {word for word in WORD.findall(opening) if word.isascii()}
    out: list[str] = []
    for name in authors:
        if not name.isascii():
            out.append(name)
            continue

        def swap(match: re.Match[str]) -> str:
            word = match.group(0)
            options = spellings.get(word.lower(), set())
            return next(iter(options)) if len(options) == 1 and word not in plain else word

        out.append(WORD.sub(swap, name))
    return out


def with_paper_accents(library: LibraryCore, paper: Paper) -> Paper:
    """The paper with its authors' accents taken from its own parsed text (unchanged if not parsed)."""
    authors = list(paper.authors)
    if not paper.id or not authors or not any(a.isascii() for a in authors):
        return paper
    opening = ""
    for chunk in library.store.chunks_of(str(paper.id)):
        opening += chunk.text + "\n"
        if len(opening) >= OPENING_CHARS:
            break
    restored = restore(authors, opening)
    return paper if restored == authors else paper.but(authors=tuple(restored))
