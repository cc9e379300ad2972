"""The child process of `pdf_limits.read_pages_bounded`: read one PDF's pages, print them as JSON.

    python -m astro_cli.research.text.pdf_worker PATH LIMITS_JSON

It runs under the parent's memory, CPU and time limits (research/text/bounded.py), so a crafted PDF
ends here, not in astro.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def main(argv: list[str]) -> int:
    import pypdfium2 as pdfium

    from astro_cli.research.text.pdfread import PdfError, read_pages

    path, limits = Path(argv[0]), json.loads(argv[1])
    answer: dict[str, Any]
    try:
        try:
            document = pdfium.PdfDocument(str(path))
            claimed = len(document)
            document.close()
        except pdfium.PdfiumError:
            claimed = 0  # read_pages says why, in its words
        pages = read_pages(path, max_pages=int(limits["max_pages"]))
        answer = {"claimed": max(claimed, len(pages)),
                  "pages": [[p.lines, p.sizes, p.marks, p.chars, p.unmapped, p.rotated, p.scanned] for p in pages]}
    except PdfError as exc:
        answer = {"error": str(exc)}
    sys.stdout.write(json.dumps(answer))  # ASCII: whatever the locale of the child
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
