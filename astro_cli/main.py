"""Process entry point.

`astro --version` is answered before typer (or anything heavier) is imported, so it stays
well under 0.15 s; everything else goes to the typer app in cli.py.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    # Never let litellm fetch its cost map from the network when it is imported later.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if sys.argv[1:] in (["--version"], ["-V"]):
        from astro_cli import __version__

        print(f"astro {__version__}")
        return
    from astro_cli.cli import run_app

    run_app()


if __name__ == "__main__":
    main()
