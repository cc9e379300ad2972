"""Issue 42: `astro library search QUESTION --json -k 10` on CosmoPaperQA's development split.

    .venv/bin/python benchmarks/bench_cosmopaperqa.py [--code DIR] [--keywords] [--planck-ocr] [--camels-md]

The 42 questions of Planck 2018 VI and CAMELS (benchmarks/data/cosmopaperqa, PROVENANCE.md); the other
three papers' rows are the project's held-out check and are not used. Both papers are added with the real
`astro library add` (Planck from its LaTeX; CAMELS's OCR Markdown written as a LaTeX file: headings as
\\section*, math kept), their vectors made with `astro library reindex` (the local model), and each question
searched over both papers in a new process. A hit is right when it holds the key passage (two thirds of
its distinctive words) or, without one, the answer's own values (its numbers, else two thirds of its
words). --code DIR runs another checkout's astro_cli (e.g. the code before this issue); --keywords
searches with vectors off; --planck-ocr reads Planck from the OCR Markdown that has its tables.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "cosmopaperqa"
STOP = set("the and for with that this from are was were which what how does have has its into their than then "
           "these those been also when where used using between over under such each other more most only".split())


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+(?:\.[0-9]+)?", text.lower()) if len(w) >= 4 and w not in STOP}


def numbers(text: str) -> set[str]:
    """The values a text states, compared as values: `47.70` is `47.7` (stop 52; until then the strings
    were compared, and Planck's `47.7 %` never matched the answer `47.70%`)."""
    return {re.sub(r"\.0*$|(\.\d*?)0+$", r"\1", n) for n in re.findall(r"\d+(?:\.\d+)?", text)}


def right(hit: str, row: dict[str, str]) -> bool:
    text = hit.lower().replace("−", "-")
    passage = row["key passage"].strip()
    if passage:
        wanted = words(passage)
        return bool(wanted) and len(wanted & words(text)) >= 2 * len(wanted) / 3
    values = numbers(row["ideal"])
    if values:
        return values <= numbers(text)
    wanted = words(row["ideal"])
    return bool(wanted) and len(wanted & words(text)) >= 2 * len(wanted) / 3


def markdown_as_latex(md: str, title: str) -> str:
    lines = [f"\\documentclass{{article}}\n\\title{{{title}}}\n\\begin{{document}}"]
    for line in md.replace("<br>", "\n").splitlines():
        heading = re.match(r"#+\s+(.*)", line)
        if heading:
            lines.append(f"\\section*{{{heading.group(1).strip()}}}")
        else:
            lines.append(re.sub(r"(?<!\\)%", r"\\%", line))
    return "\n".join(lines) + "\n\\end{document}\n"


def camels_file(folder: Path, as_markdown: bool) -> Path:
    """CAMELS's OCR text in `folder`: the Markdown itself (read by astro's Markdown reader, as a user
    adds it), or written as a LaTeX file (the route of stops 42-51, before astro read Markdown)."""
    text = (DATA / "camels_2010.00619v2.md").read_text()
    path = folder / ("camels.md" if as_markdown else "ms.tex")
    path.write_text(text if as_markdown else markdown_as_latex(text, "The CAMELS project"))
    return path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--code", type=Path, help="a checkout whose astro_cli to run")
    parser.add_argument("--keywords", action="store_true", help="vectors off")
    parser.add_argument("--planck-ocr", action="store_true", help="Planck from its full OCR Markdown (tables "
                        "included: planck2018_vi_ocr.md) instead of its LaTeX copy, which lacks the tables")
    parser.add_argument("--camels-md", action="store_true", help="CAMELS's OCR Markdown added as it is (astro's "
                        "Markdown reader: tables and captions as chunks), not written as a LaTeX file")
    args = parser.parse_args()
    rows = list(csv.DictReader((DATA / "dev.tsv").open(), delimiter="\t"))
    root = Path(tempfile.mkdtemp(prefix="cosmopaperqa-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTRO_")}
    env.update(ASTRO_HOME=str(root / "home"), ASTRO_WORKER="0",
               ASTRO_LIBRARY_EMBEDDING_MODEL="off" if args.keywords else "local:all-MiniLM-L6-v2")
    if args.code:
        env["PYTHONPATH"] = str(args.code.resolve())
    work = root / "ws"
    work.mkdir()

    def astro(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "astro_cli", *argv], cwd=work, env=env, capture_output=True,
                              text=True, check=False, timeout=3600)

    (work / "planck").mkdir()
    if args.planck_ocr:
        (work / "planck" / "ms.tex").write_text(markdown_as_latex((DATA / "planck2018_vi_ocr.md").read_text(),
                                                                  "Planck 2018 results. VI. Cosmological parameters"))
    else:
        (work / "planck" / "ms.tex").write_bytes((DATA / "planck2018_vi.tex").read_bytes())
    (work / "camels").mkdir()
    camels = camels_file(work / "camels", args.camels_md)
    load = time.perf_counter()
    off = {**env, "ASTRO_LIBRARY_EMBEDDING_MODEL": "off"}  # words now; the vectors below, timed apart
    papers = (("planck", "1807.06209", "Planck 2018 results. VI. Cosmological parameters"),
              ("camels", "2010.00619", "The CAMELS project"))
    for folder, arxiv, title in papers:  # the title given: code before issue 42 could not read Planck's
        name = camels.name if folder == "camels" else "ms.tex"
        done = subprocess.run([sys.executable, "-m", "astro_cli", "library", "add", f"./{folder}/{name}", "--arxiv",
                               arxiv, "--year", "2020", "--author", "A. Author", "--title", title], cwd=work, env=off,
                              capture_output=True, text=True, check=False)
        print(done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr.strip())
    words_s = time.perf_counter() - load
    vectors_s = 0.0
    if not args.keywords:
        start = time.perf_counter()
        made = astro("library", "reindex")
        vectors_s = time.perf_counter() - start
        print(made.stdout.strip())
    hits_at: list[int | None] = []
    times: list[float] = []
    for row in rows:
        start = time.perf_counter()
        found = astro("library", "search", row["question"], "--json", "-k", "10")
        times.append(time.perf_counter() - start)
        hits = json.loads(found.stdout)["hits"] if found.returncode == 0 else []
        paper = "1807.06209" if "1807.06209" in row["source file "] else "2010.00619"
        at = next((n for n, hit in enumerate(hits, 1) if hit["source"] == paper and right(hit["text"], row)), None)
        hits_at.append(at)
    n = len(rows)
    for k in (1, 3, 10):
        got = sum(1 for at in hits_at if at is not None and at <= k)
        print(f"recall@{k}: {got}/{n} = {100 * got / n:.0f}%")
    print(f"load: words {words_s:.1f} s (both papers), vectors {vectors_s:.1f} s; "
          f"search: median {statistics.median(times):.2f} s, max {max(times):.2f} s per question (new process)")
    print("ranks:", hits_at)


if __name__ == "__main__":
    main()
