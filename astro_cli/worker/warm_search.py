"""What the worker loads for `astro library search`: numpy, the search modules and the local embedding
model, so a search it serves pays none of them (about 1 s of a 1.3-2.7 s search in a new process).

numpy's OpenBLAS starts its thread pool when numpy is imported, and a process with threads cannot
fork safely: the worker imports numpy with OpenBLAS at one thread (the variables are set for the
import only, so its children's environment is their client's). A child that encodes a large batch
sets the thread count itself (local_embed._blas_threads); a question runs on one thread anyway.
"""

from __future__ import annotations

import logging
import os
import time

from astro_cli.worker.preload import import_more, recording_environment, thread_count, warm_state

log = logging.getLogger(__name__)

SEARCH_MODULES = (
    "astro_cli.commands.library_cmd",
    "astro_cli.research.search.passages",
    "astro_cli.research.search.embed",
    "astro_cli.research.search.reindex",
    "astro_cli.research.library.storage.sqlite_store",
)
# Not threadpoolctl: its import sets KMP_DUPLICATE_LIB_OK, which every child would then carry into
# the commands and hooks it runs (tests/worker/test_worker_parity.py); a search imports it in a few ms.
ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def warm_search() -> str:
    """Import numpy (one BLAS thread) and the search path, and load the default local model when it
    is installed; returns what was done, for the worker's log. Raises RuntimeError when a thread
    was started anyway (the worker must then not fork)."""
    started = time.monotonic()
    saved = {name: os.environ.get(name) for name in ONE_THREAD}
    # What numpy's import reads is recorded like litellm's (a client that differs runs in-process);
    # the thread variables are put back inside the block, so they are no effect a child adopts.
    with recording_environment(warm_state()):
        try:
            for name in ONE_THREAD:
                os.environ[name] = "1"
            import numpy  # noqa: F401 - imported for its children
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    offenders = import_more(SEARCH_MODULES)
    from astro_cli.research.search.embedding_choice import DEFAULT_MODEL, default_installed

    model = "no local model installed"
    if default_installed():
        from astro_cli.research.search.local_embed import LocalModelError, preload

        try:
            preload(DEFAULT_MODEL)
            model = f"{DEFAULT_MODEL} loaded"
        except (LocalModelError, OSError, ValueError) as exc:
            model = f"{DEFAULT_MODEL} not loaded ({exc})"
    if offenders or thread_count() != 1:
        raise RuntimeError(f"warming the search path started {thread_count() - 1} thread(s) ({', '.join(offenders)})")
    return f"search warm in {time.monotonic() - started:.1f} s: numpy, {model}"
