"""What the worker imports before it serves, what those imports did to the process, and how a
forked child redoes it.

Importing litellm reads some 400 environment variables into module state and sets one
(TIKTOKEN_CACHE_DIR); it also loads a `.env` file found above litellm's installation. A child
runs with its client's environment, so the worker records every variable its imports read (with
the value seen) and every variable they set. A child whose client would have read different
values runs nothing and declines (the client then runs in its own process); a child that goes on
redoes the settings and the `.env` loading when it adopts litellm (litellm_model/loader.py `load_litellm`).

Which modules: a seed (astro's run path, litellm, its tokenizer) plus what real runs imported
(learned from the first run in-process and from every child), limited to astro's own
dependencies and the standard library, so nothing a workspace brings can run in the worker. A
module that would start a thread is never imported here: a process with threads cannot fork safely.
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from astro_cli.litellm_model import compat
from astro_cli.worker.process_state import Incompatible

log = logging.getLogger(__name__)

SEED = (
    "astro_cli.cli",
    "astro_cli.commands.run_cmd",
    "astro_cli.agent.factory",
    "astro_cli.ui.oneshot",
    "astro_cli.store.sessions",
    "rich.markdown",
    "rich.status",
    *compat.WARM_MODULES,  # the adapter's own (litellm's default tokenizer), named by the adapter
)
LEARNABLE_PACKAGES = frozenset({
    "astro_cli", "litellm", "openai", "httpx", "httpcore", "h11", "h2", "hpack", "hyperframe", "anyio", "sniffio",
    "certifi", "idna", "dateutil", "six", "tiktoken", "tiktoken_ext", "sqlite_utils", "sqlite_fts4", "pluggy",
    "watchdog", "typer", "click", "rich", "pygments", "markdown_it", "mdurl", "yaml", "_yaml", "pydantic",
    "pydantic_core", "annotated_types", "typing_extensions", "typing_inspection", "jiter", "jinja2", "markupsafe",
    "platformdirs", "regex", "dotenv", "aiohttp", "aiosignal", "frozenlist", "multidict", "yarl", "propcache",
    "attr", "attrs", "distro", "fastuuid", "importlib_metadata", "zipp", "jsonschema", "referencing", "rpds",
    "jsonschema_specifications", "tabulate", "click_default_group", "shellingham", "wcwidth", "prompt_toolkit",
})
# Standard-library modules with effects on import (a browser, a window, the terminal).
NEVER_LEARN = frozenset({"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "readline",
                         "__main__", "pydoc", "webbrowser"})
MAX_WARM = 10000
MODEL = "model:"  # a warm-list entry naming a pydantic model to build, not a module to import


@dataclass
class WarmState:
    """Set once in the worker before its first fork; children only read it."""

    worker_pid: int
    env_reads: dict[str, str | None] = field(default_factory=dict)
    env_effects: dict[str, str] = field(default_factory=dict)
    imported: int = 0
    failed: list[str] = field(default_factory=list)
    # Pydantic models whose schema is built on first use (litellm defers most of them): a run
    # reports those it built, and the worker builds them before the next fork.
    unbuilt_models: list[type] = field(default_factory=list)


_STATE: WarmState | None = None


def warm_state() -> WarmState:
    """The worker's state (after warm_up)."""
    assert _STATE is not None, "warm_up() first"
    return _STATE


def thread_count() -> int:
    """Threads of this process, native ones included (Linux); Python's own count elsewhere."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


@contextmanager
def recording_environment(state: WarmState) -> Iterator[None]:
    """Note every variable read (with the value seen) and set while the block imports modules.

    Where the environment cannot be recorded (litellm_model/compat.py), the worker cannot know what
    its imports read: it does not serve (RuntimeError), and each run starts in a process of its own."""
    before = dict(os.environ)
    written: set[str] = set()
    reads = state.env_reads

    def on_read(key: str, value: str | None) -> None:
        if key not in written:
            reads.setdefault(key, value)

    try:
        with compat.recording_environment(on_read, written.add):
            yield
    except compat.EnvironmentNotRecordable as exc:
        raise RuntimeError(f"the environment cannot be recorded here ({exc})") from None
    finally:
        for name, value in os.environ.items():
            if before.get(name) != value:
                state.env_effects[name] = value


def warm_up(preload_litellm: Callable[[], Any], features: Iterable[str], extra: Iterable[str] = ()) -> WarmState:
    """Import litellm (litellm_model/loader.py's `preload_litellm`), the seed, the `features` modules and `extra`;
    leave the process ready to fork (or raise RuntimeError). The caller passes both, so this module,
    which litellm_model/loader.py reads when a forked child adopts litellm, imports neither."""
    global _STATE
    state = WarmState(worker_pid=os.getpid())
    mode = os.environ.get("LITELLM_MODE")
    with recording_environment(state):
        preload_litellm()
    state.env_reads["LITELLM_MODE"] = mode  # preload_litellm set it for the import itself
    compat.reserve_for_forking("the astro worker")  # litellm's Rust runtime must not start threads here
    if thread_count() != 1:
        raise RuntimeError(f"importing litellm started {thread_count() - 1} thread(s)")
    _STATE = state
    extra = list(extra)
    import_more([*SEED, *features, *(name for name in extra if not name.startswith(MODEL))])
    build_models(name[len(MODEL):] for name in extra if name.startswith(MODEL))
    return state


def _unbuilt_models() -> list[type]:
    return [cls for cls in compat.pydantic_models() if compat.model_built(cls) is False]


def _model_name(cls: type) -> str:
    return f"{MODEL}{cls.__module__}:{cls.__qualname__}"


def models_built_since_fork() -> list[str]:
    """In a child: the deferred models this run built (for the worker to build before the next fork)."""
    state = _STATE
    if state is None:
        return []
    return [_model_name(cls) for cls in state.unbuilt_models if compat.model_built(cls)]


def built_deferred_models() -> list[str]:
    """In a process of its own: the models whose schema it built on first use (the worker's warm list)."""
    return [_model_name(cls) for cls in compat.pydantic_models() if compat.model_built(cls) and compat.defers_build(cls)]


def build_models(names: Iterable[str]) -> int:
    """Build the schemas of these models now (pure computation, no thread); returns how many were built."""
    built = 0
    for name in names:
        module_name, _, qualname = name.partition(":")
        target: Any = sys.modules.get(module_name)
        for part in qualname.split("."):
            target = getattr(target, part, None)
        rebuild = getattr(target, "model_rebuild", None)
        if rebuild is None:
            continue
        try:
            rebuild(raise_errors=False)
            built += 1
        except Exception:  # noqa: BLE001 - the child builds it on first use, as before
            log.debug("%s was not prebuilt", qualname, exc_info=True)
            continue
    if _STATE is not None:
        _STATE.unbuilt_models = _unbuilt_models()
    return built


def import_more(names: Iterable[str]) -> list[str]:
    """Import `names` one by one (failures are noted and skipped); returns those that started a thread.

    A module that starts a thread leaves the process unfit to fork: the caller must stop serving.
    """
    state = _STATE
    assert state is not None, "warm_up() first"
    offenders: list[str] = []
    with recording_environment(state):
        for name in names:
            if name in sys.modules:
                continue
            try:
                importlib.import_module(name)
            except (Exception, SystemExit):  # noqa: BLE001 - a failure only means one module less is warm
                state.failed.append(name)
                continue
            state.imported += 1
            if thread_count() != 1:
                offenders.append(name)
                break
    state.unbuilt_models = _unbuilt_models()
    return offenders


def learnable(names: Iterable[str], modules: Mapping[str, Any] | None = None) -> list[str]:
    """The module names worth importing in the worker: astro's dependencies and the standard library.

    Model entries (`model:module:qualname`) pass when their module is learnable."""
    modules = sys.modules if modules is None else modules
    stdlib: frozenset[str] = getattr(sys, "stdlib_module_names", frozenset())
    chosen = []
    for name in names:
        if name.startswith(MODEL):
            module = name[len(MODEL):].partition(":")[0]
            if learnable([module], modules):
                chosen.append(name)
            continue
        top = name.partition(".")[0]
        if modules.get(name) is None or top in NEVER_LEARN:
            continue
        if top in LEARNABLE_PACKAGES or top in stdlib:
            chosen.append(name)
    return sorted(chosen)


# --- the warm list file ------------------------------------------------------------------------
def read_warm_list(path: str) -> tuple[list[str], set[str]]:
    """(modules to import, modules never to import again) from the worker's warm list."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = [line.strip() for line in handle]
    except OSError:
        return [], set()
    deny = {line[1:] for line in lines if line.startswith("!")}
    return [line for line in lines if line and not line.startswith("!") and line not in deny], deny


def merge_warm_list(path: str, names: Iterable[str], deny: Iterable[str] = ()) -> None:
    """Add `names` (and `deny` markers) to the warm list; written whole, then renamed into place."""
    known, denied = read_warm_list(path)
    denied |= set(deny)
    merged = sorted((set(known) | set(names)) - denied)[:MAX_WARM]
    from pathlib import Path

    from astro_cli.security.writer import write_file

    text = "".join(f"{name}\n" for name in merged) + "".join(f"!{name}\n" for name in sorted(denied))
    try:
        write_file(Path(path), text)
    except OSError:
        log.debug("could not write the warm list %s", path, exc_info=True)


# --- in a forked child -------------------------------------------------------------------------
def check_environment(env: Mapping[str, str]) -> None:
    """Decline when the client's environment differs in a variable the worker's imports read."""
    state = _STATE
    if state is None:
        raise Incompatible("the worker is not warmed up")
    effective = {**_dotenv_values(env), **env} if not _dotenv_overrides(env) else {**env, **_dotenv_values(env)}
    for name, value in state.env_reads.items():
        if effective.get(name) != value:
            raise Incompatible(f"{name} differs from the worker's environment")


def adopt_litellm(litellm: Any) -> None:
    """In a child's first load_litellm(): load the `.env` file and set the variables as litellm's import did."""
    state = _STATE
    if state is None or state.worker_pid == os.getpid():
        return
    compat.apply_process_defaults()
    for name, value in state.env_effects.items():
        os.environ[name] = value


def _dotenv_overrides(env: Mapping[str, str]) -> bool:
    return env.get("LITELLM_DEV_ENV_HOT_RELOAD") == "True"


def _dotenv_values(env: Mapping[str, str]) -> dict[str, str]:
    """The `.env` litellm would load in this client's process (it searches upward from its own folder)."""
    if env.get("LITELLM_MODE", "DEV") != "DEV":
        return {}
    path = compat.litellm_dotenv()
    if path is None:
        return {}
    from dotenv import dotenv_values

    return {k: v for k, v in dotenv_values(path).items() if v is not None}
