"""The child process of `latex_limits.read_bounded` / `metadata_bounded`: read one LaTeX source,
print the result as JSON.

    python -m astro_cli.research.text.latex_worker sections|metadata PATH LIMITS_JSON

It runs under the parent's memory, CPU and time limits (research/text/bounded.py), so a crafted source
ends here, not in astro.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def main(argv: list[str]) -> int:
    from astro_cli.research.text.latex import latex_sections
    from astro_cli.research.text.latex_limits import Budget, LatexError, LatexLimits

    mode, path, limits = argv[0], Path(argv[1]), LatexLimits(**json.loads(argv[2]))
    budget = Budget(limits)
    answer: dict[str, Any]
    try:
        if mode == "metadata":
            from astro_cli.research.text.file_metadata import read_latex_metadata

            answer = read_latex_metadata(path, budget)
        else:
            title, sections = latex_sections(path, budget=budget)
            answer = {"title": title, "sections": [[s.title, s.text] for s in sections]}
    except LatexError as exc:
        answer = {"error": str(exc)}
    else:
        answer["exceeded"] = budget.exceeded
    sys.stdout.write(json.dumps(answer))  # ASCII: whatever the locale of the child
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
