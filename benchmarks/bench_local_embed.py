"""The local embedding model's cost: one paper's chunks embedded whole, as indexing does.

    .venv/bin/python benchmarks/bench_local_embed.py [--runs 3] [--code DIR] [--save FILE.npy]

The chunks of 1001.0012 (the PDF, 1,200-character chunks as the library writes them) through
`MiniLM.encode_whole` (256-token windows averaged): wall and CPU seconds, median of --runs after one
warm-up. `--code DIR` measures another checkout's code (main before a change); `--save` keeps the
vectors, to compare two checkouts' (they should agree to ~1e-7).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

if "--code" in sys.argv:  # another checkout's code, for a before/after comparison
    sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--code") + 1]).resolve()))
else:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PAPER = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "papers" / "arXiv_1001.0012v2_astro-ph.EP.pdf"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--code", help="a checkout whose astro_cli to measure")
    parser.add_argument("--save", type=Path, help="write the vectors here (.npy)")
    args = parser.parse_args()

    import numpy as np

    from astro_cli.research.library.parse import pdf_chunks
    from astro_cli.research.search.local_embed import MiniLM, model_folder
    from astro_cli.research.text.pdfread import read_pages

    chunks, _ = pdf_chunks(read_pages(PAPER), 1200)
    texts = [chunk.text for chunk in chunks]
    model = MiniLM(model_folder("local:all-MiniLM-L6-v2"))
    vectors = model.encode_whole(texts)  # warm-up: BLAS threads, the tokenizer's pool
    walls, cpus = [], []
    for _ in range(args.runs):
        started, cpu = time.perf_counter(), time.process_time()
        vectors = model.encode_whole(texts)
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    if args.save:
        np.save(args.save, vectors)
    print(f"{len(texts)} chunks of {PAPER.name}: {statistics.median(walls):.2f} s wall, "
          f"{statistics.median(cpus):.2f} CPU-s (median of {args.runs}); "
          f"{statistics.median(cpus) / len(texts) * 1000:.0f} CPU-ms a chunk")


if __name__ == "__main__":
    main()
