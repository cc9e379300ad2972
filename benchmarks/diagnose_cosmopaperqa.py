"""Issue 42: where each development question's right passage ranks in each list of the fusion.

    .venv/bin/python benchmarks/diagnose_cosmopaperqa.py [--dir DIR] [--rebuild] [--keywords] [--camels-md]

Builds the two development papers' library once (the real `astro library add` and `reindex`, as
bench_cosmopaperqa.py does) in DIR (kept, so ranking changes can be tried without re-making the
vectors), then searches each question in this process and prints, per question, the rank of the
best right chunk in every list (bm25, literal runs, vectors, ...) and in the fused result, with a
class for each miss. Development split only (dev.tsv); the judge is bench_cosmopaperqa.right.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cosmopaperqa import DATA, camels_file, markdown_as_latex, right  # noqa: E402

PAPERS = (("planck", "1807.06209", "Planck 2018 results. VI. Cosmological parameters"),
          ("camels", "2010.00619", "The CAMELS project"))


def build(root: Path, keywords: bool, planck_ocr: bool = False, camels_md: bool = False) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTRO_")}
    env.update(ASTRO_HOME=str(root / "home"), ASTRO_WORKER="0",
               ASTRO_LIBRARY_EMBEDDING_MODEL="off" if keywords else "local:all-MiniLM-L6-v2")
    work = root / "ws"
    if (work / ".astro").is_dir():
        return env
    work.mkdir(parents=True, exist_ok=True)
    (work / "planck").mkdir(exist_ok=True)
    planck = "ms.tex"
    if planck_ocr and camels_md:  # both OCR copies added as Markdown (the Markdown reader: tables as chunks)
        planck = "planck.md"
        (work / "planck" / planck).write_text((DATA / "planck2018_vi_ocr.md").read_text())
    elif planck_ocr:  # the full OCR Markdown, with the tables the LaTeX copy lacks (PROVENANCE.md)
        (work / "planck" / "ms.tex").write_text(markdown_as_latex((DATA / "planck2018_vi_ocr.md").read_text(),
                                                                  PAPERS[0][2]))
    else:
        (work / "planck" / "ms.tex").write_bytes((DATA / "planck2018_vi.tex").read_bytes())
    (work / "camels").mkdir(exist_ok=True)
    camels = camels_file(work / "camels", camels_md)
    off = {**env, "ASTRO_LIBRARY_EMBEDDING_MODEL": "off"}
    for folder, arxiv, title in PAPERS:
        name = camels.name if folder == "camels" else planck
        subprocess.run([sys.executable, "-m", "astro_cli", "library", "add", f"./{folder}/{name}", "--arxiv", arxiv,
                        "--year", "2020", "--author", "A. Author", "--title", title], cwd=work, env=off, check=True,
                       capture_output=True)
    if not keywords:
        start = time.process_time()
        subprocess.run([sys.executable, "-m", "astro_cli", "library", "reindex"], cwd=work, env=env, check=True,
                       capture_output=True)
        print(f"vectors made ({time.process_time() - start:.0f} s CPU of this process only)")
    return env


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", type=Path, default=Path("/tmp/cosmopaperqa-diagnose"))
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--keywords", action="store_true")
    parser.add_argument("--quiet", action="store_true", help="only the recall lines")
    parser.add_argument("--planck-ocr", action="store_true", help="Planck from its OCR Markdown (with tables)")
    parser.add_argument("--camels-md", action="store_true", help="CAMELS's OCR Markdown added as it is (the Markdown "
                        "reader), not written as a LaTeX file; with --planck-ocr, Planck's OCR Markdown too")
    args = parser.parse_args()
    if args.rebuild and args.dir.exists():
        subprocess.run(["rm", "-rf", str(args.dir)], check=True)
    env = build(args.dir, args.keywords, args.planck_ocr, args.camels_md)
    os.environ.update(env)
    os.chdir(args.dir / "ws")
    from astro_cli.commands.library_context import library_app
    from astro_cli.research.library.service import Library

    library = Library.of(library_app())
    rows = list(csv.DictReader((DATA / "dev.tsv").open(), delimiter="\t"))
    fused_at: list[int | None] = []
    times: list[float] = []
    for n, row in enumerate(rows, 1):
        paper = "1807.06209" if "1807.06209" in row["source file "] else "2010.00619"
        start = time.process_time()
        result = library.search(row["question"], k=50)
        times.append(time.process_time() - start)
        best: dict[str, int] = {}
        at = None
        for rank, hit in enumerate(result.hits, 1):
            if hit.source != paper or not right(hit.text, row):
                continue
            at = at or rank
            for name, r in hit.ranks.items():
                best[name] = min(best.get(name, 99), r)
        fused_at.append(at)
        wrong_paper = bool(result.hits) and result.hits[0].source != paper
        lists = " ".join(f"{name}={best.get(name, '-')}" for name in sorted({k for h in result.hits for k in h.ranks}))
        kind = ("ok" if at and at <= 3 else "absent" if at is None else "near" if at <= 10 else "far")
        if not args.quiet:
            print(f"{n:2d} {paper} fused={at or '-':>2} {kind:6s} {lists} {'WRONG-PAPER@1' if wrong_paper else ''}"
                  f" | {row['question'][:90]}")
    total = len(rows)
    for k in (1, 3, 10):
        got = sum(1 for a in fused_at if a is not None and a <= k)
        print(f"recall@{k}: {got}/{total} = {100 * got / total:.0f}%")
    print(f"search CPU per question (in process, k=50): median {statistics.median(times):.3f} s")
    print("ranks:", fused_at)


if __name__ == "__main__":
    main()
