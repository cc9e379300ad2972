"""The files one named .tex needs: itself, what it \\input/\\include-s (transitively), its .bbl/.bib.

`astro library add ./x.tex` used to copy every .tex under x.tex's folder and then read the largest
one with \\documentclass, so a folder holding two papers indexed the other paper's text under this
one's name. The rule now: the file named is the paper; a file is brought along only when the paper
asks for it by name (\\input, \\include, \\bibliography) or is its BibTeX output (`x.bbl`), plus the
class and style files of the folder, which hold no text the reader looks at.
"""

from __future__ import annotations

import re
from pathlib import Path

from astro_cli.research.text.latex import _INPUT, strip_comments
from astro_cli.research.text.latex_limits import LatexLimits

_BIBLIOGRAPHY = re.compile(r"\\bibliography\s*\{([^}]*)\}")
STYLE_SUFFIXES = (".cls", ".sty", ".bst")


def tex_closure(main: Path) -> list[Path]:
    """`main`, the .tex files it inputs (within the folder, bounded), its .bbl/.bib, and the
    folder's .cls/.sty/.bst files; every path is under main's folder."""
    limits = LatexLimits()
    main = main.resolve()
    folder = main.parent
    found: list[Path] = [main]
    queue: list[tuple[Path, int]] = [(main, 0)]
    bib_names: set[str] = {main.stem}
    while queue and len(found) <= limits.max_inputs:
        current, depth = queue.pop(0)
        text = strip_comments(_read(current))
        bib_names.update(n.strip() for m in _BIBLIOGRAPHY.finditer(text) for n in m.group(1).split(",") if n.strip())
        if depth >= limits.max_input_depth:
            continue
        for match in _INPUT.finditer(text):
            target = _resolve(folder, current.parent, (match.group(1) or match.group(2) or "").strip())
            if target is not None and target not in found:
                found.append(target)
                queue.append((target, depth + 1))
    for name in sorted(bib_names):
        for suffix in (".bbl", ".bib"):
            extra = _inside(folder, folder / f"{name}{suffix}")
            if extra is not None and extra not in found:
                found.append(extra)
    found += sorted(p.resolve() for p in folder.iterdir() if p.is_file() and p.suffix.lower() in STYLE_SUFFIXES)
    return found


def _resolve(folder: Path, base: Path, target: str) -> Path | None:
    """An input's file as TeX finds it (relative to the main file's folder, `.tex` added), or None."""
    if not target:
        return None
    for root in (folder, base):
        for candidate in (target, target + ".tex"):
            path = _inside(folder, root / candidate)
            if path is not None and path.suffix.lower() == ".tex":
                return path
    return None


def _inside(folder: Path, path: Path) -> Path | None:
    """The file, resolved, when it exists and lies under the folder (no ../ or link out of it)."""
    try:
        resolved = path.resolve()
    except OSError:
        return None
    return resolved if resolved.is_file() and resolved.is_relative_to(folder) else None


def _read(path: Path) -> str:
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")
