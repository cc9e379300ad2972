"""`python -m astro_cli.worker`: the worker process (started by astro itself; see lifecycle.py)."""

from astro_cli.worker.daemon import main

main()
