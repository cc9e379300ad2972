"""Issue 29: how exactly astro's paper text keeps what the paper prints, and what reading a PDF costs.

    .venv/bin/python benchmarks/bench_papertext.py [--runs 3] [--no-timing]

The labelled set (tests/fixtures/papertext/labels.json) holds passages of the fixture papers as
printed, written in astro's conventions (docs/library.md: 10^4, 1/2, A_g, [3] marks, ' | ' between
table cells, ⟦ ⟧ around a formula whose layout was guessed). For each passage the text astro
indexes (parse.py's chunks of the PDF, or latex.py's sections of a source) is searched for the best
matching run of words, and the two are aligned word by word:

- errors: words replaced, missing or added inside the passage, per 1,000 expected words;
- changed values: expected tokens with a digit (a number, a designation like XO-2, an exponent)
  that the matched text does not contain exactly. A value that changes is the worst error: a
  model quotes it with a real citation;
- marks: errors inside ⟦ ⟧ (where the reader said it was unsure) are counted apart, and a second
  table gives, over each paper's whole text, the ⟦ ⟧ spans, the words inside them and their share
  of all words (issue 44: marking everything would hide errors, not remove them).

Timing: reading each PDF (PDFium, the visual lines, the structure) --runs times, the median per
page, wall and CPU (the CPU figure is the one to compare on a shared machine). `--code DIR` runs
the same measurement with another checkout's code (main before a change). `--long 500` also reads
one PDF of that many pages, made by concatenating the fixture PDFs with pypdfium2 (in a temporary
folder, not committed), in a child process: seconds per page and the child's peak memory.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if "--code" in sys.argv:  # another checkout's code, for a before/after comparison
    sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--code") + 1]).resolve()))
else:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LABELS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "papertext" / "labels.json"
PAPERS = LABELS.parent.parent / "papers"
UNSEEN = LABELS.parent / "unseen"  # issue 44: six papers never tuned on, split by paper (PROVENANCE.md)
UNSEEN2 = LABELS.parent / "unseen2"  # issue 44, stop 51: four fresh held-out papers (the six above are development now)
UNSEEN3 = LABELS.parent / "unseen3"  # issue 44, stop 52: fresh held-out papers labelled apart from the reader's changes
UNSEEN4 = LABELS.parent / "unseen4"  # issue 44, stop 53: fresh held-out papers, labelled apart again
UNSEEN5 = LABELS.parent / "unseen5"  # issue 44, stop 54: fresh held-out papers, labelled apart again
UNSEEN6 = LABELS.parent / "unseen6"  # issue 44, stop 54: a second fresh held-out set, labelled apart
_MARKS = frozenset("⟦⟧")
_MARKED_SPAN = re.compile(r"⟦([^⟦⟧]*)⟧")
_VALUE = re.compile(r"\d")
_TOKEN = re.compile(r"\w+|[^\w\s]")


def _readers() -> tuple[Any, Any]:
    """read_pages and pdf_chunks, wherever the checkout being measured keeps them."""
    try:
        from astro_cli.research.library.parse import pdf_chunks
        from astro_cli.research.text.pdfread import read_pages
    except ImportError:  # before the research/ subpackages (issue 27)
        from astro_cli.research.parse import pdf_chunks  # type: ignore[no-redef]
        from astro_cli.research.pdfread import read_pages  # type: ignore[no-redef]
    return read_pages, pdf_chunks


def pdf_text(path: Path) -> tuple[str, float, int, float]:
    """The indexed text of a PDF (chunks joined), the seconds it took, its pages, and the CPU seconds."""
    read_pages, pdf_chunks = _readers()
    started, cpu = time.perf_counter(), time.process_time()
    pages = read_pages(path)
    chunks, _ = pdf_chunks(pages, 1200)
    return ("\n".join(c.text for c in chunks), time.perf_counter() - started, len(pages),
            time.process_time() - cpu)


def long_document(pages: int, folder: Path) -> Path:
    """A PDF of `pages` pages: the fixture PDFs one after another, again and again."""
    import pypdfium2 as pdfium

    sources = [pdfium.PdfDocument(str(p)) for p in sorted(PAPERS.glob("*.pdf"))]
    long = pdfium.PdfDocument.new()
    while len(long) < pages:
        for source in sources:
            take = min(len(source), pages - len(long))
            if take <= 0:
                break
            long.import_pages(source, list(range(take)))
    path = folder / f"long_{pages}.pdf"
    long.save(str(path))
    return path


def read_long(path: Path) -> dict[str, float]:
    """Read one PDF in this (child) process: wall and CPU seconds per page, peak memory in MB."""
    started, cpu = time.perf_counter(), time.process_time()
    text, _, pages, _ = pdf_text(path)
    return {"pages": pages, "wall_per_page": (time.perf_counter() - started) / pages,
            "cpu_per_page": (time.process_time() - cpu) / pages, "words": len(text.split()),
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def latex_text(path: Path) -> str:
    try:
        from astro_cli.research.text.latex import latex_sections
    except ImportError:  # before the research/ subpackages (issue 27)
        from astro_cli.research.latex import latex_sections  # type: ignore[no-redef]

    _, sections = latex_sections(path)
    return "\n".join(s.text for s in sections)


def tokens(text: str) -> list[tuple[str, int]]:
    """Words and punctuation apart ('2008),' -> '2008', ')', ','), each with the index of the
    whitespace word it came from, so context glued to a passage's last word is not an error."""
    out = []
    for n, word in enumerate(text.split()):
        out.extend((piece, n) for piece in _TOKEN.findall(word))
    return out


def unmarked(text: str) -> tuple[list[str], list[int], frozenset[int]]:
    """The text's tokens without the ⟦ ⟧ marks, the token index before which each mark stood, and
    the indices of the tokens inside marks: a mark says the reader was unsure, so marks, and the
    errors inside them, are counted apart."""
    words: list[str] = []
    marks: list[int] = []
    inside: set[int] = set()
    opened: int | None = None
    for token, _ in tokens(text):
        if token in _MARKS:
            marks.append(len(words))
            if token == "⟦":
                opened = len(words)
            elif opened is not None:
                inside.update(range(opened, len(words)))
                opened = None
        else:
            words.append(token)
    return words, marks, frozenset(inside)


def _fit(aligned: difflib.SequenceMatcher[str]) -> float:
    """How well a window matches the passage, counting only the window's tokens from its first
    matched token to its last: the context around a window is not the passage's, and a window
    cut short by the end of the text must not win by having less context (the last row of a
    table at the end of a paper scored as if its first cell were lost)."""
    blocks = [b for b in aligned.get_matching_blocks() if b.size]
    if not blocks:
        return 0.0
    span = blocks[-1].a + blocks[-1].size - blocks[0].a
    return 2 * sum(b.size for b in blocks) / (span + len(aligned.b))


def score(expected: str, doc: list[str], matcher: difflib.SequenceMatcher, marked: frozenset[int] = frozenset()
          ) -> tuple[int, int, list[str], str, tuple[int, int], int]:
    """(erroneous words, expected words, values not found, the matched text, its span in doc, the
    errors inside ⟦ ⟧) for one passage; `marked`: the indices of doc's tokens inside the marks.

    The passage is aligned token by token with the best matching run of the text (anchored on
    each place its first tokens occur and on the longest common run; the best aligned wins).
    An expected word is an error when any of its tokens is replaced or missing; every word the
    text adds inside the passage is an error too.
    """
    want_tokens = tokens(expected)
    want = [t for t, _ in want_tokens]
    matcher.set_seq2(want)
    found = matcher.find_longest_match(0, len(doc), 0, len(want))
    starts = {max(0, found.a - found.b)}
    head = want[:2]
    starts.update(i for i in range(len(doc) - 1) if doc[i : i + 2] == head)
    best = None
    start_of: dict[int, int] = {}
    for start in starts:
        window = doc[max(0, start - 3) : start + len(want) + 3 + len(want) // 4]  # room for a formula written longer
        aligned = difflib.SequenceMatcher(None, window, want, autojunk=False)
        if best is None or _fit(aligned) > _fit(best[0]):
            best = (aligned, window)
            start_of[id(window)] = start
    assert best is not None
    aligned, window = best
    ops = aligned.get_opcodes()
    while ops and ops[0][0] == "delete":
        ops = ops[1:]
    while ops and ops[-1][0] == "delete":
        ops = ops[:-1]
    wrong: set[int] = set()
    added = in_marks = 0
    offset = max(0, start_of[id(window)] - 3) if ops else 0
    marked_words: set[int] = set()  # expected words read inside ⟦ ⟧ (right or wrong)
    for tag, i1, i2, j1, j2 in ops:
        inside = offset + i1 in marked or (i1 and offset + i1 - 1 in marked and offset + i2 in marked)
        if tag == "equal":
            marked_words.update(want_tokens[j1 + k][1] for k in range(i2 - i1) if offset + i1 + k in marked)
        elif inside:
            marked_words.update(want_tokens[j][1] for j in range(j1, j2))
        if tag in ("replace", "insert"):
            new = {want_tokens[j][1] for j in range(j1, j2)} - wrong
            wrong.update(new)
            in_marks += len(new) if inside else 0
        if tag in ("replace", "delete"):
            extra = max(0, (i2 - i1) - (j2 - j1))
            added += extra
            in_marks += extra if inside else 0
    matched = " ".join(window[ops[0][1] : ops[-1][2]]) if ops else ""
    span = (offset + ops[0][1], offset + ops[-1][2]) if ops else (0, 0)
    squeezed = matched.replace(" ", "")
    changed = [(w, n in marked_words) for n, w in enumerate(expected.split())
               if _VALUE.search(w) and "".join(_TOKEN.findall(w)) not in squeezed]
    return len(wrong) + added, len(expected.split()), changed, matched, span, in_marks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-timing", action="store_true")
    parser.add_argument("--show", action="store_true", help="print every passage with an error")
    parser.add_argument("--code", help="the checkout whose code is measured (default: this one)")
    parser.add_argument("--long", type=int, default=0, help="also read one PDF of this many pages")
    parser.add_argument("--read-long", help=argparse.SUPPRESS)  # the child of --long
    parser.add_argument("--set", choices=("fixtures", "unseen", "unseen2", "unseen3", "unseen4", "unseen5", "unseen6"),
                        default="fixtures",
                        help="unseen: issue 44's six papers (tests/fixtures/papertext/unseen); unseen2: the four "
                             "fresh held-out papers of stop 51; unseen3, unseen4, unseen5: those of stops 52, 53 and 54; unseen6: a second set of stop 54 "
                             "(score each once, at the end)")
    parser.add_argument("--split", choices=("development", "held-out"),
                        help="with --set unseen, score one half only (held-out: once, at the end)")
    args = parser.parse_args(argv)
    if args.read_long:
        print(json.dumps(read_long(Path(args.read_long))))
        return 0
    folder = {"unseen": UNSEEN, "unseen2": UNSEEN2, "unseen3": UNSEEN3, "unseen4": UNSEEN4,
              "unseen5": UNSEEN5, "unseen6": UNSEEN6}.get(args.set, PAPERS)
    labels = json.loads((LABELS if folder is PAPERS else folder / "labels.json").read_text(encoding="utf-8"))
    if args.split:
        labels["papers"] = [p for p in labels["papers"] if p.get("split") == args.split]
    totals = {"errors": 0, "words": 0, "changed": 0, "changed_in": 0, "passages": 0, "marks": 0, "in_marks": 0}
    rows = []
    shares: list[tuple[str, int, int, int]] = []  # (paper, marks, words inside them, words) of the whole text
    for paper in labels["papers"]:
        path = folder / paper["file"]
        cpus: list[float] = []
        if path.suffix == ".pdf":
            text, seconds, pages, cpu = pdf_text(path)
            times, cpus = [seconds / pages], [cpu / pages]
            if not args.no_timing:
                for _ in range(args.runs - 1):
                    _, seconds, _, cpu = pdf_text(path)
                    times.append(seconds / pages)
                    cpus.append(cpu / pages)
        else:
            text, pages, times = latex_text(path), 0, []
        words, marks, inside_marks = unmarked(text)
        spans = _MARKED_SPAN.findall(text)  # the reader's unsure spans over the whole text, not the passages only
        in_spans, all_words = sum(len(span.split()) for span in spans), len(text.replace("⟦", " ").replace("⟧", " ").split())
        matcher = difflib.SequenceMatcher(None, words, autojunk=False)
        errors = count = changed = marked = in_marks = changed_in = 0
        passages = [p for p in labels["passages"] if p["paper"] == paper["id"]]
        for passage in passages:
            e, n, values, matched, (low, high), unsure = score(passage["text"], words, matcher, inside_marks)
            errors, count, changed, in_marks = errors + e, count + n, changed + len(values), in_marks + unsure
            changed_in += sum(1 for _, unsure_value in values if unsure_value)
            values = [w + (" (in ⟦ ⟧)" if unsure_value else "") for w, unsure_value in values]
            inside = sum(1 for m in marks if low < m < high)
            marked += inside
            if args.show and (e or values or inside):
                print(f"  {paper['id']} [{passage['kind']}] {e} errors ({unsure} inside marks), {inside} marks, "
                      f"changed {values}\n"
                      f"    want: {passage['text']}\n    have: {matched}")
        rows.append((paper["id"], paper["file"], len(passages), count, errors, in_marks, (changed, changed_in), marked, pages,
                     statistics.median(times) if times else None, statistics.median(cpus) if cpus else None))
        shares.append((paper["id"], len(spans), in_spans, all_words))
        totals["errors"] += errors
        totals["words"] += count
        totals["changed"] += changed
        totals["changed_in"] += changed_in
        totals["passages"] += len(passages)
        totals["marks"] += marked
        totals["in_marks"] += in_marks
    print("| paper | passages | words | errors | per 1,000 words | of them inside ⟦ ⟧ | per 1,000 outside "
          "| changed values (inside ⟦ ⟧) | ⟦ ⟧ marks | pages | s/page (median) | CPU s/page (median) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for pid, _file, n, words_n, errors, in_marks, changed, marked, pages, per_page, cpu_page in rows:
        rate = 1000 * errors / words_n if words_n else 0.0
        outside = 1000 * (errors - in_marks) / words_n if words_n else 0.0
        timing = f"{per_page:.4f}" if per_page is not None and not args.no_timing else "–"
        cpu_timing = f"{cpu_page:.4f}" if cpu_page is not None and not args.no_timing else "–"
        print(f"| {pid} | {n} | {words_n} | {errors} | {rate:.1f} | {in_marks} | {outside:.1f} "
              f"| {changed[0]} ({changed[1]}) | {marked} "
              f"| {pages or '–'} | {timing} "
              f"| {cpu_timing} |")
    rate = 1000 * totals["errors"] / max(totals["words"], 1)
    outside = 1000 * (totals["errors"] - totals["in_marks"]) / max(totals["words"], 1)
    print(f"| all | {totals['passages']} | {totals['words']} | {totals['errors']} | {rate:.1f} | {totals['in_marks']} "
          f"| {outside:.1f} | {totals['changed']} ({totals['changed_in']}) | {totals['marks']} | | | |")
    print("\nWhat the reader marked unsure, over the whole text of each paper (not only its passages): a reader "
          "that marks everything is not the goal.\n")
    print("| paper | ⟦ ⟧ spans | words inside | words | share marked |")
    print("| --- | ---: | ---: | ---: | ---: |")
    all_row = ("all", sum(r[1] for r in shares), sum(r[2] for r in shares), sum(r[3] for r in shares))
    for pid, spans_n, inside_n, words_n in [*shares, all_row]:
        print(f"| {pid} | {spans_n} | {inside_n} | {words_n} | {100 * inside_n / max(words_n, 1):.1f} % |")
    if args.long:
        with tempfile.TemporaryDirectory() as folder:
            path = long_document(args.long, Path(folder))
            command = [sys.executable, __file__, "--read-long", str(path)]
            if args.code:
                command += ["--code", args.code]
            result = json.loads(subprocess.run(command, capture_output=True, check=True, text=True).stdout)
        print(f"\n{result['pages']}-page PDF (the fixtures concatenated), one read in a child process: "
              f"{result['wall_per_page']:.4f} s/page wall, {result['cpu_per_page']:.4f} CPU s/page, "
              f"{result['words']:,} words indexed, peak memory {result['peak_mb']:.0f} MB")
    print(f"load average {' '.join(f'{x:.1f}' for x in __import__('os').getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
