"""The child process of `latex_limits.read_bounded`: read one LaTeX source, print the result as JSON.

    python -m astro_cli.research.latex_worker PATH LIMITS_JSON

It runs under the parent's memory and time limits, so a crafted source ends here, not in astro.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    from astro_cli.research.latex import latex_sections
    from astro_cli.research.latex_limits import Budget, LatexError, LatexLimits

    path, limits = Path(argv[0]), LatexLimits(**json.loads(argv[1]))
    budget = Budget(limits)
    try:
        title, sections = latex_sections(path, budget=budget)
    except LatexError as exc:
        answer: dict = {"error": str(exc)}
    else:
        answer = {"title": title, "sections": [[s.title, s.text] for s in sections], "exceeded": budget.exceeded}
    sys.stdout.write(json.dumps(answer))  # ASCII: whatever the locale of the child
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
