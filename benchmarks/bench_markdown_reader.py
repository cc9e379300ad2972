"""CPU time of the Markdown reader on a file: `python benchmarks/bench_markdown_reader.py FILE.md`.

Reads the file five times in-process and prints the chunks and the median CPU time (process_time,
not wall time: the machine is shared)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from astro_cli.research.library.readers.markdown import MarkdownReader


def main(path: Path) -> None:
    reader = MarkdownReader()
    times = []
    for _ in range(5):
        start = time.process_time()
        reading = reader.read(path, 1500)
        times.append(time.process_time() - start)
    times.sort()
    print(f"{path.name}: {len(reading.chunks)} chunks, exceeded: {reading.exceeded}, CPU median {times[2]:.3f} s")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
