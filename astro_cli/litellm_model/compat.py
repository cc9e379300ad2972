"""The fence: every place astro reaches past a library's public API, in one module.

litellm's private parts (its fork guard, its process defaults, its `.env` search, the chunk list a
stream keeps, the tokenizer files it ships), pydantic's build flags and the class of `os.environ`
are optimisations, never requirements. Each use here checks that the part is there and has the
shape expected; when it is not (another litellm, another pydantic, another Python), the
optimisation is off, the reason goes to the --debug log once, and the run goes on the public way.
Widening the litellm pin means running tests/litellm_model/test_litellm_compat.py and the agent, worker, stream
and token tests against the new version (docs/architecture.md, "The litellm fence").

Nothing here imports litellm: the callers pass the loaded module in, or it is looked up in
`sys.modules`.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

FORK_GUARD = "litellm.rust_bridge.fork_guard"
PROCESS_DEFAULTS = "litellm._process_defaults"
# litellm's default tokenizer (tiktoken's cl100k_base, about 0.4 s to load), used by every request:
# the warm worker imports it with its seed, and load_litellm() builds it before the first request.
DEFAULT_ENCODING = "litellm.litellm_core_utils.default_encoding"
WARM_MODULES = (DEFAULT_ENCODING,)


def build_default_tokenizer() -> None:
    """Import litellm's default tokenizer now (a private module: absent in another litellm, the
    first request builds it instead)."""
    try:
        importlib.import_module(DEFAULT_ENCODING)
    except ImportError:
        log.debug("litellm has no %s: its first request builds the tokenizer", DEFAULT_ENCODING, exc_info=True)
_said: set[str] = set()  # each "this optimisation is off" once per process


def _off(feature: str, why: str) -> None:
    if feature not in _said:
        _said.add(feature)
        log.debug("%s is off: %s", feature, why)


class EnvironmentNotRecordable(RuntimeError):
    """The environment's reads cannot be recorded here (the warm worker must not serve)."""


# --- the warm worker (worker/preload.py) -------------------------------------------------------
def reserve_for_forking(reason: str, modules: dict[str, Any] | None = None) -> bool:
    """Ask litellm's Rust extension not to start its runtime threads in this process (it is about to
    fork). False when this litellm has no such guard: one without the extension starts no threads,
    and the worker's thread count check catches one that does."""
    modules = sys.modules if modules is None else modules
    guard = modules.get(FORK_GUARD)
    if guard is None:
        try:
            guard = importlib.import_module(FORK_GUARD)
        except ImportError:
            _off("litellm's fork guard", f"{FORK_GUARD} is not in this litellm")
            return False
    reserve = getattr(guard, "reserve_process_for_forking", None)
    if not callable(reserve):
        _off("litellm's fork guard", f"{FORK_GUARD} has no reserve_process_for_forking()")
        return False
    reserve(reason)
    return True


def apply_process_defaults(modules: dict[str, Any] | None = None) -> bool:
    """Redo in a forked child what litellm's import did to the process (its `.env`, its defaults)."""
    modules = sys.modules if modules is None else modules
    defaults = modules.get(PROCESS_DEFAULTS)
    apply = getattr(defaults, "apply_process_defaults", None)
    if not callable(apply):
        _off("litellm's process defaults in a forked child", f"{PROCESS_DEFAULTS}.apply_process_defaults is missing")
        return False
    apply()
    return True


def litellm_dotenv(modules: dict[str, Any] | None = None) -> str | None:
    """The `.env` file litellm's import loads: python-dotenv's `find_dotenv` as litellm calls it, which
    searches upward from the folder of the calling module (litellm's, not ours: hence done here)."""
    modules = sys.modules if modules is None else modules
    folder = None
    for name in (PROCESS_DEFAULTS, "litellm"):
        path = getattr(modules.get(name), "__file__", None)
        if path:
            folder = os.path.dirname(os.path.abspath(path))
            break
    if folder is None:
        _off("the worker's .env check", "litellm's location is unknown; the current folder stands in")
        folder = os.path.abspath(".")
    while True:
        candidate = os.path.join(folder, ".env")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def pydantic_models(modules: dict[str, Any] | None = None) -> Iterator[type]:
    """Every pydantic model class defined so far (walked from BaseModel's subclasses)."""
    modules = sys.modules if modules is None else modules
    pydantic = modules.get("pydantic")
    base = getattr(pydantic, "BaseModel", None)
    if base is None:
        return
    stack, seen = [base], set()
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                stack.append(sub)
                yield sub


def model_built(cls: type) -> bool | None:
    """Whether pydantic has built `cls`'s schema (None: this pydantic does not say; treat as unknown)."""
    flag = cls.__dict__.get("__pydantic_complete__")
    return flag if isinstance(flag, bool) else None


def defers_build(cls: type) -> bool:
    config = getattr(cls, "model_config", None)
    return bool(config.get("defer_build")) if isinstance(config, dict) else False


@contextmanager
def recording_environment(on_read: Callable[[str, str | None], None],
                          on_write: Callable[[str], None]) -> Iterator[None]:
    """Call `on_read(name, value)` for every variable read and `on_write(name)` for every one set or
    removed while the block runs, by giving `os.environ` a recording subclass of its own class for
    the block. Raises EnvironmentNotRecordable where the class cannot be swapped."""
    environ = os.environ
    base = type(environ)
    methods: list[Any] = [getattr(base, name, None) for name in ("__getitem__", "__setitem__", "__delitem__")]
    if not all(callable(method) for method in methods):
        raise EnvironmentNotRecordable(f"{base.__name__} has no item methods to wrap")
    get, set_, delete = methods

    class Recording(base):  # type: ignore[misc, valid-type]
        def __getitem__(self, key: str) -> str:
            try:
                value: str = get(self, key)
            except KeyError:
                on_read(key, None)
                raise
            on_read(key, value)
            return value

        def __setitem__(self, key: str, value: str) -> None:
            on_write(key)
            set_(self, key, value)

        def __delitem__(self, key: str) -> None:
            on_write(key)
            delete(self, key)

    try:
        environ.__class__ = Recording
    except TypeError as exc:
        _off("the warm worker", f"os.environ cannot record what litellm reads ({exc})")
        raise EnvironmentNotRecordable(str(exc)) from None
    try:
        yield
    finally:
        environ.__class__ = base


# --- streaming (adapter.py) ------------------------------------------------------------------
def forget_chunks(response: Any) -> bool:
    """Trim the list of chunks litellm's stream wrapper keeps (to rebuild the response for logging
    callbacks astro does not register) to what its end-of-stream step needs: the chunks that carry
    usage, and the last two (its repetition check). False when this litellm keeps no such list."""
    chunks = getattr(response, "chunks", None)
    if not isinstance(chunks, list):
        _off("trimming litellm's chunk list", f"{type(response).__name__} has no list named 'chunks'")
        return False
    if len(chunks) > 2:
        chunks[:] = [c for c in chunks[:-2] if getattr(c, "usage", None) is not None] + chunks[-2:]
    return True


# --- token counts (agent/tokens.py) ------------------------------------------------------------
def tokenizer_dir(find_spec: Callable[[str], Any] = importlib.util.find_spec) -> Path | None:
    """The folder of tokenizer files litellm ships (tiktoken's cl100k_base among them), found without
    importing litellm; None when this litellm ships none there."""
    try:
        spec = find_spec("litellm")
    except (ImportError, ValueError):
        spec = None
    locations = list(getattr(spec, "submodule_search_locations", None) or [])
    if not locations:
        _off("counting with litellm's bundled tokenizer", "litellm is not installed")
        return None
    folder = Path(locations[0]) / "litellm_core_utils" / "tokenizers"
    if not folder.is_dir():
        _off("counting with litellm's bundled tokenizer", f"{folder} does not exist in this litellm")
        return None
    return folder


# --- what is on ---------------------------------------------------------------------------------
def available(modules: dict[str, Any] | None = None) -> dict[str, str | None]:
    """Each optimisation -> None when this litellm has what it needs, else why it is off. Looks only,
    changes nothing (the worker's report, the pin tests)."""
    import importlib.util as util

    modules = sys.modules if modules is None else modules
    found: dict[str, str | None] = {}
    try:
        guard = modules.get(FORK_GUARD) or util.find_spec(FORK_GUARD)
    except (ImportError, ValueError):
        guard = None
    found["fork guard"] = None if guard is not None else f"{FORK_GUARD} is missing"
    try:
        defaults = util.find_spec(PROCESS_DEFAULTS)
    except (ImportError, ValueError):
        defaults = None
    found["process defaults"] = None if defaults is not None else f"{PROCESS_DEFAULTS} is missing"
    found["bundled tokenizer"] = None if tokenizer_dir() is not None else "litellm ships no tokenizers folder"
    return found
