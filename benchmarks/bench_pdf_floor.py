"""Issue 29: where a PDF page's CPU goes, and what it would be with PDFium's per-character calls free.

    .venv/bin/python benchmarks/bench_pdf_floor.py [--runs 7]

For each fixture PDF: CPU milliseconds per page (median of --runs reads) of PDFium opening the page
and its text, `pdfruns.page_lines`, `pdfscript.render_line` of the glyph lines and `pdf_chunks`;
the per-character PDFium calls a page makes (each bound function wrapped in a counter), and what each
kind costs (timed in a loop over every character of one page). "floor" is the whole read less all
those calls: the most that fetching per-character facts in compiled code could give.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PAPERS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "papers"
_TIMED = {"box": 4, "object": 0, "origin": 2, "size": 0}  # kinds timed, with their by-reference arguments


def phases(path: Path, runs: int) -> dict[str, float]:
    """CPU ms per page of each stage, medians over `runs` reads."""
    import pypdfium2 as pdfium

    from astro_cli.research.library.parse import pdf_chunks
    from astro_cli.research.text.pdfread import read_pages
    from astro_cli.research.text.pdfruns import PlainLine, page_lines
    from astro_cli.research.text.pdfscript import render_line

    found: dict[str, list[float]] = collections.defaultdict(list)
    for _ in range(runs):
        document = pdfium.PdfDocument(str(path))
        pages = len(document)
        spent = collections.Counter[str]()
        for index in range(pages):
            started = time.process_time()
            page = document[index]
            textpage = page.get_textpage()
            opened = time.process_time()
            lines = page_lines(textpage.raw)
            read = time.process_time()
            for number, glyphs in enumerate(lines.lines):
                if not isinstance(glyphs, PlainLine):
                    render_line(glyphs, lines.references.get(number))
            spent["open"] += opened - started
            spent["lines"] += read - opened
            spent["render"] += time.process_time() - read
            textpage.close()
            page.close()
        document.close()
        started = time.process_time()
        texts = read_pages(path)
        whole = time.process_time()
        pdf_chunks(texts, 1200)
        spent["chunks"] = time.process_time() - whole
        spent["read_pages"] = whole - started
        for name, seconds in spent.items():
            found[name].append(seconds / pages * 1000)
    return {name: statistics.median(values) for name, values in found.items()}


def calls_per_page(path: Path) -> dict[str, float]:
    """How many times a page calls each per-character PDFium function."""
    from astro_cli.research.text import pdfglyphs
    from astro_cli.research.text.pdfread import read_pages

    bound = pdfglyphs._calls()
    counts = collections.Counter[str]()

    def counting(name: str, function: Any) -> Any:
        def call(*args: Any) -> Any:
            counts[name] += 1
            return function(*args)
        return call

    wrapped = {name: counting(name, function) for name, function in bound.items()}
    original = pdfglyphs._calls
    pdfglyphs._calls = lambda: wrapped  # type: ignore[assignment]
    try:
        pages = len(read_pages(path))
    finally:
        pdfglyphs._calls = original
    return {name: count / pages for name, count in counts.items()}


def cost_per_call(path: Path) -> dict[str, float]:
    """CPU µs per call of the timed kinds, over every character of the PDF's second page (loop subtracted)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    from astro_cli.research.text.pdfglyphs import CharReader

    document = pdfium.PdfDocument(str(path))
    page = document[min(1, len(document) - 1)]
    textpage = page.get_textpage()
    reader = CharReader(textpage.raw)
    count = raw.FPDFText_CountChars(textpage.raw)

    def per_char(body: Any) -> float:  # CPU time: the figure a shared machine does not inflate
        started = time.process_time()
        for _ in range(20):
            body()
        return (time.process_time() - started) / 20 / count * 1e6

    loop = per_char(lambda: [None for _ in range(count)])
    costs = {}
    for name, refs in _TIMED.items():
        args = reader.refs[4:6] if name == "origin" else reader.refs[:refs]
        costs[name] = per_char(lambda f=reader.call[name], a=args: [f(reader.tp, i, *a) for i in range(count)]) - loop
    textpage.close()
    page.close()
    document.close()
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    print("| paper | open page + text | lines | render | chunks | read + chunks | PDFium calls a page "
          "| their ms | floor (ms) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path in sorted(PAPERS.glob("*.pdf")):
        stages = phases(path, args.runs)
        calls = calls_per_page(path)
        costs = cost_per_call(path)
        fallback = statistics.mean(costs.values())  # the untimed kinds: font, map error, generated, counts
        calls_ms = sum(n * costs.get(name, fallback) for name, n in calls.items()) / 1000
        total = stages["read_pages"] + stages["chunks"]
        print(f"| {path.stem[:22]} | {stages['open']:.2f} | {stages['lines']:.2f} | {stages['render']:.2f} "
              f"| {stages['chunks']:.2f} | {total:.2f} | {sum(calls.values()):,.0f} | {calls_ms:.2f} "
              f"| {total - calls_ms:.2f} |", flush=True)


if __name__ == "__main__":
    main()
