"""Library passages for a person: title, where in the paper, and the passage with the asked words lit.

`astro library search` is read by a researcher, not a model: no <paper-text> framing, the paper's
title first, and the part of each passage where the question's words cluster, with those words
highlighted (accents and case ignored, as the index ignores them; 'scales' lights 'scale'). Paper
text may come from an attacker's source file: control characters are shown as escapes (ui/visible).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.padding import Padding
from rich.text import Text

from astro_cli.research.text.pdfchars import fold
from astro_cli.security.visible import one_line, visible

WINDOW = 700  # characters of a passage shown around its matches (--full shows all of it)
_WORD = re.compile(r"\w+", re.UNICODE)
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "es", "ed", "ly", "s")


def stem(word: str) -> str:
    """A crude stem, enough to light 'scales' for 'scale' (the index itself uses Porter's)."""
    word = fold(word)
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: len(word) - len(suffix)]
    return word


def question_terms(phrasings: Sequence[str]) -> tuple[set[str], list[str]]:
    """(word stems, quoted phrases) of the question's content words, for highlighting."""
    from astro_cli.research.search.fts import parse_question

    stems: set[str] = set()
    phrases: list[str] = []
    for phrasing in phrasings:
        parsed = parse_question(phrasing)
        stems.update(stem(w) for w in parsed.words)
        phrases += [fold(p) for p in parsed.phrases]
    return {s for s in stems if len(s) > 1}, phrases


def matched_spans(text: str, stems: set[str], phrases: list[str]) -> list[tuple[int, int]]:
    """Where the question's words (and phrases) occur in the text."""
    spans = [(m.start(), m.end()) for m in _WORD.finditer(text) if stem(m.group(0)) in stems]
    folded = fold(text)
    if len(folded) == len(text):  # folding kept the offsets: phrases can be found in place
        for phrase in phrases:
            spans += [(m.start(), m.end()) for m in re.finditer(re.escape(phrase), folded)]
    return sorted(spans)


def best_window(text: str, spans: list[tuple[int, int]], width: int = WINDOW) -> tuple[int, int]:
    """The stretch of `width` characters holding the most matches, widened to word boundaries."""
    if len(text) <= width:
        return 0, len(text)
    best, start = 0, 0
    for first, _ in spans:
        count = sum(1 for s, _ in spans if first <= s < first + width)
        if count > best:
            best, start = count, max(0, first - width // 5)
    end = min(len(text), start + width)
    start = max(0, end - width)
    if start > 0:
        start = text.find(" ", start) + 1 or start
    if end < len(text):
        end = text.rfind(" ", start, end) if text.rfind(" ", start, end) > start else end
    return start, end


def passage(text: str, stems: set[str], phrases: list[str], full: bool = False) -> Text:
    """The passage (or its best part), one line per paragraph, the asked words in bold yellow."""
    spans = matched_spans(text, stems, phrases)
    start, end = (0, len(text)) if full else best_window(text, spans)
    shown = Text()
    if start > 0:
        shown.append("… ", style="dim")
    piece = text[start:end]
    body = Text(piece)
    for s, e in spans:
        if s >= start and e <= end:
            body.stylize("bold yellow", s - start, e - start)
    shown.append_text(body)
    if end < len(text):
        shown.append(" …", style="dim")
    return shown


def print_hits(console: Console, result: Any, full: bool = False) -> None:
    """Numbered hits: title, id · section · page · score, then the passage."""
    from astro_cli.research.search.passages import describe_method, where_of

    asked = one_line(" / ".join(f'"{q}"' for q in result.queries), 1000)
    if not result.hits:
        hint = "" if result.include_references else " (reference lists were not searched: --include-references)"
        console.print(Text(f"No passage in the library matches {asked}{hint}."))
        # What a person types next (the model's view names its tools instead).
        console.print(Text(f"Find papers with `astro search {shlex.quote(result.queries[0])}`, or add one with "
                           "`astro library add ARXIV_ID`.", style="dim"))
        return
    stems, phrases = question_terms(result.queries)
    console.print(Text(f"{len(result.hits)} passage(s) for {asked} ({describe_method(result)})", style="dim"))
    if result.warning:
        console.print(Text(f"note: {result.warning}", style="yellow"))
    if result.dropped:
        console.print(Text(f"words too common in the library to search by: {', '.join(result.dropped)}", style="dim"))
    for n, hit in enumerate(result.hits, start=1):
        console.print()
        title = hit.title or ("note" if hit.kind == "note" else "untitled")
        console.print(Text.assemble((f"{n}. ", "bold"), (one_line(title, 300), "bold")))
        console.print(Text("   " + one_line(" · ".join([*where_of(hit), f"score {hit.score:g}"]), 300), style="cyan"))
        text = " ".join(visible(hit.text, tabs=True).split())  # text from a paper: no control sequence
        console.print(Padding(passage(text, stems, phrases, full), (0, 0, 0, 3)))
