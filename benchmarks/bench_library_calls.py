"""Issue 27: the Python cost of one library search (the seams around SQLite), old API or new.

    .venv/bin/python benchmarks/bench_library_calls.py

The three fixture papers parsed into a throw-away workspace, then four questions searched 200 times,
five times over: CPU milliseconds per search (process time, so a busy machine does not inflate it).
Run it from a checkout of the commit before issue 27 too: it detects which API it finds.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from astro_cli.research.search import passages  # noqa: E402
from tests.library_support import add_paper, make_app  # noqa: E402

PAPERS = ("1001.0012", "1111.2011", "1202.3665")
QUESTIONS = ["acceptance fraction of the sampler", "day-side temperature outliers",
             "Bethe lattice critical exponents", "albedo of hot Jupiters"]


def searcher(app: Any) -> tuple[str, Callable[[str], Any]]:
    """The papers parsed, and one search, through whichever API this checkout has."""
    if passages.search_library.__code__.co_varnames[0] == "library":  # issue 27: the Library service
        from astro_cli.research.library.service import Library

        library = Library.of(app)
        for paper_id in PAPERS:
            library.parse(paper_id)
        return "Library service", lambda q: library.search(q, k=8)
    from astro_cli.research.library.parse import parse_paper

    for paper_id in PAPERS:
        parse_paper(app, paper_id)  # type: ignore[arg-type]  # the API before issue 27
    return "app-taking functions", lambda q: passages.search_library(app, q, k=8)  # type: ignore[arg-type]


def main() -> None:
    app = make_app(Path(tempfile.mkdtemp()) / "ws")
    for paper_id in PAPERS:
        add_paper(app, paper_id)
    name, search = searcher(app)
    for question in QUESTIONS:
        search(question)
    runs = []
    for _ in range(5):
        start = time.process_time()
        for _ in range(50):
            for question in QUESTIONS:
                search(question)
        runs.append((time.process_time() - start) / (50 * len(QUESTIONS)) * 1000)
    print(f"{name}: {statistics.median(runs):.3f} CPU ms per search (median of 5 x 200; runs "
          f"{', '.join(f'{r:.3f}' for r in runs)})")
    app.close()


if __name__ == "__main__":
    main()
