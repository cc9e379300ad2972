"""Importing litellm: once, lazily, only when a model is about to be called.

`import litellm` costs about 4 s and 200 MB, so it happens here, on the first model path (the REPL
warms it in a background thread while the user types; the warm worker imports it before it forks).
A module of its own so that the token counter can reach a loaded litellm without the adapter,
and the only one of astro that says `import litellm` (tests/structure/test_structure_model.py).
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

from astro_cli.litellm_model.compat import build_default_tokenizer
from astro_cli.litellm_model.defaults import litellm_environment_defaults

_LITELLM: Any = None
_LITELLM_LOCK = threading.Lock()


def load_litellm() -> Any:
    """Import litellm once, with its local cost map and without telemetry or network at import."""
    global _LITELLM
    with _LITELLM_LOCK:
        if _LITELLM is None:
            litellm_environment_defaults(os.environ)
            inherited = "litellm" in sys.modules
            import litellm

            if inherited:
                # Imported by the warm worker this process was forked from (astro_cli/worker): redo
                # here what that import did to the process, at the point where we would have imported it.
                from astro_cli.worker.preload import adopt_litellm

                adopt_litellm(litellm)
            litellm.telemetry = False
            litellm.suppress_debug_info = True
            litellm.drop_params = True
            # litellm builds its default tokenizer (cl100k, ~0.3 s) inside the first streaming call;
            # building it here keeps that out of the first request (the REPL does it while you type).
            build_default_tokenizer()
            # A logging task per streamed chunk feeds litellm's callbacks, and astro registers none.
            litellm.disable_streaming_logging = True
            _LITELLM = litellm
    return _LITELLM


def loaded_litellm() -> Any:
    """litellm if load_litellm() has finished loading it here, else None; never imports it (token counts)."""
    return _LITELLM


def preload_litellm() -> Any:
    """Import litellm in the warm worker without adopting it (the forked child's load_litellm() does).

    litellm loads a `.env` file found above its installation when imported; the worker imports it
    in production mode so that no key from such a file ever sits in the long-lived worker, and
    each child loads the file itself when it adopts litellm, as a process of its own would.
    """
    litellm_environment_defaults(os.environ)
    mode = os.environ.get("LITELLM_MODE")
    os.environ["LITELLM_MODE"] = "PRODUCTION"
    try:
        import litellm
    finally:
        if mode is None:
            del os.environ["LITELLM_MODE"]
        else:
            os.environ["LITELLM_MODE"] = mode
    litellm.litellm_mode = mode or "DEV"
    return litellm


def warm_up_in_background() -> threading.Thread:
    thread = threading.Thread(target=load_litellm, name="litellm-import", daemon=True)
    thread.start()
    return thread
