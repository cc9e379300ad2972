"""`python -m astro_cli.worker`: the worker process (started by astro itself; see lifecycle.py).

The entry point hands the worker astro's command line, which the worker runs in each forked child:
an entry point sits above everything, so this import is no arrow up (tests/structure/test_structure_layers.py).
"""

from astro_cli.main import run_command_line
from astro_cli.worker.daemon import main


def run_cli(prog_name: str | None) -> None:
    run_command_line(prog_name=prog_name)


main(run_cli)
