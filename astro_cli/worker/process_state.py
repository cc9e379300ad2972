"""What a forked child takes over from its client, so that it is the process `astro run` would have been.

`capture()` runs in the thin client (standard library only, a fraction of a millisecond); `adopt()`
runs in the child, before any of astro's code: working folder, umask, environment (with the time
zone and locale derived from it), argv and sys.path, resource limits, niceness, and new
sys.stdin/stdout/stderr on the client's descriptors, built the way the interpreter builds them.
"""

from __future__ import annotations

import io
import os
import sys

from astro_cli.worker.paths import package_folder

TYPE_CHECKING = False  # `import typing` is a cost the thin client does not pay; mypy reads this as True
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, TextIO

# The limits a shell's `ulimit` sets; the child takes the client's (it can lower, never raise, a hard limit).
RLIMIT_NAMES = ("RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_DATA", "RLIMIT_STACK", "RLIMIT_CORE", "RLIMIT_NOFILE",
                "RLIMIT_AS", "RLIMIT_NPROC")
STDIO_NAMES = ("<stdin>", "<stdout>", "<stderr>")


class Incompatible(Exception):
    """This client's process cannot be reproduced by a child of this worker; the message says why."""


def interpreter_identity() -> dict[str, Any]:
    """What must be equal between client and worker for a fork to behave like the client would."""
    flags = {name: getattr(sys.flags, name) for name in dir(sys.flags)
             if not name.startswith("_") and name not in ("count", "index", "n_fields",
                                                          "n_sequence_fields", "n_unnamed_fields")}
    return {
        "executable": sys.executable,
        "version": sys.version,
        "package": package_folder(),
        "flags": flags,
        "warnoptions": list(sys.warnoptions),
        "xoptions": {str(k): str(v) for k, v in sys._xoptions.items()},
        "path": list(sys.path[1:]),
        "filesystem_encoding": [sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()],
        "ids": [os.getuid(), os.getgid(), sorted(os.getgroups())],
    }


def _stream(stream: TextIO | None) -> dict[str, str | None] | None:
    if stream is None:
        return None
    return {"encoding": stream.encoding, "errors": stream.errors}


def _rlimits() -> dict[str, list[int]]:
    try:
        import resource
    except ImportError:  # not on this platform
        return {}
    return {name: list(resource.getrlimit(getattr(resource, name))) for name in RLIMIT_NAMES if hasattr(resource, name)}


def open_descriptors() -> list[int]:
    """The standard descriptors this process has open (a closed one stays closed in the child)."""
    found = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            continue
        found.append(fd)
    return found


def open_working_folder() -> int | None:
    """A descriptor of the working folder: the child enters the very same folder, even if renamed."""
    flags = getattr(os, "O_PATH", os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        return os.open(".", flags)
    except OSError:
        return None


def capture(argv: list[str]) -> dict[str, Any]:
    """Everything about this process that the child must reproduce (sent to the child only)."""
    umask = os.umask(0o22)
    os.umask(umask)
    try:
        cwd: str | None = os.getcwd()
    except OSError:
        cwd = None
    main = sys.modules.get("__main__")
    return {
        "argv": list(argv),
        "cwd": cwd,
        "env": dict(os.environ),
        "umask": umask,
        "stdio": [_stream(sys.stdin), _stream(sys.stdout), _stream(sys.stderr)],
        # -u / PYTHONUNBUFFERED shows only on the streams themselves (sys.flags does not carry it).
        "buffered": not getattr(sys.stdout or sys.stderr, "write_through", False),
        "main_package": getattr(main, "__package__", None),
        "sys_path": list(sys.path),
        "identity": interpreter_identity(),
        "rlimits": _rlimits(),
        "nice": os.getpriority(os.PRIO_PROCESS, 0) if hasattr(os, "getpriority") else None,
    }


# --- in the child ------------------------------------------------------------------------------
def check_identity(request: dict[str, Any]) -> None:
    mine, theirs = interpreter_identity(), request.get("identity") or {}
    for key, value in mine.items():
        if theirs.get(key) != value:
            raise Incompatible(f"the client's interpreter differs from the worker's ({key})")


def adopt(request: dict[str, Any], stdio_fds: dict[int, int], cwd_fd: int | None) -> list[str]:
    """Become the client's process; returns notes for the debug log (never values of the environment)."""
    notes: list[str] = []
    _enter_folder(request, cwd_fd)
    os.umask(int(request["umask"]))
    _replace_environment(request["env"])
    sys.argv[:] = list(request["argv"])
    sys.path[:] = list(request["sys_path"])
    _apply_limits(request.get("rlimits") or {})
    nice = request.get("nice")
    if nice is not None and hasattr(os, "getpriority") and nice != os.getpriority(os.PRIO_PROCESS, 0):
        try:
            os.setpriority(os.PRIO_PROCESS, 0, int(nice))
        except OSError:
            notes.append(f"kept the worker's niceness {os.getpriority(os.PRIO_PROCESS, 0)} (the client has {nice})")
    _replace_stdio(request["stdio"], stdio_fds, bool(request.get("buffered", True)))
    return notes


def _enter_folder(request: dict[str, Any], cwd_fd: int | None) -> None:
    try:
        if cwd_fd is not None:
            os.fchdir(cwd_fd)
        elif request.get("cwd"):
            os.chdir(request["cwd"])
        else:
            raise Incompatible("the client has no working folder")
    except OSError as exc:
        raise Incompatible(f"cannot enter the client's working folder ({exc.strerror})") from None
    finally:
        if cwd_fd is not None:
            os.close(cwd_fd)


def _replace_environment(env: dict[str, str]) -> None:
    """The client's environment, and what the interpreter derives from it at start-up."""
    os.environ.clear()
    os.environ.update(env)
    import time

    if hasattr(time, "tzset"):
        time.tzset()
    import locale

    try:
        locale.setlocale(locale.LC_CTYPE, "")
    except locale.Error:
        pass
    if "tempfile" in sys.modules:  # imported already, so importing it again costs nothing
        import tempfile

        tempfile.tempdir = None  # gettempdir() looks at TMPDIR again


def _apply_limits(limits: dict[str, list[int]]) -> None:
    if not limits:
        return
    import resource

    for name, (soft, hard) in limits.items():
        which = getattr(resource, name, None)
        if which is None:
            continue
        current = resource.getrlimit(which)
        if tuple(current) == (soft, hard):
            continue
        try:
            resource.setrlimit(which, (soft, hard))
        except (ValueError, OSError):
            raise Incompatible(f"cannot take over the client's {name} ({soft}, {hard})") from None


def _replace_stdio(streams: list[dict[str, str | None] | None], fds: dict[int, int], buffered: bool) -> None:
    """dup2 the client's descriptors onto 0, 1, 2 and build sys.std* as CPython's create_stdio does."""
    old = {id(sys.stdin): 0, id(sys.stdout): 1, id(sys.stderr): 2}
    new: list[io.TextIOWrapper | None] = [None, None, None]
    for target in (0, 1, 2):
        source, spec = fds.get(target), streams[target]
        if source is None or spec is None:
            try:
                os.close(target)
            except OSError:
                pass
            continue
        os.dup2(source, target)
        if source not in (0, 1, 2):
            os.close(source)
        new[target] = _text_stream(target, spec, buffered)
    sys.stdin, sys.stdout, sys.stderr = new
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = new  # type: ignore[misc]
    _repoint_log_handlers(old, new)


def _text_stream(fd: int, spec: dict[str, str | None], buffered: bool) -> io.TextIOWrapper:
    write = fd != 0
    buffering = -1 if buffered or not write else 0
    binary = open(fd, "wb" if write else "rb", buffering=buffering, closefd=False)
    raw = binary.raw if isinstance(binary, (io.BufferedReader, io.BufferedWriter)) else binary
    assert isinstance(raw, io.FileIO)  # open() on a descriptor always sits on a FileIO
    raw.name = STDIO_NAMES[fd]
    line_buffering = buffered and (raw.isatty() or fd == 2)
    stream = io.TextIOWrapper(binary, spec["encoding"], spec["errors"], newline="\n",
                              line_buffering=line_buffering, write_through=not buffered)
    stream.mode = "w" if write else "r"  # type: ignore[misc]  # CPython's create_stdio sets it; typeshed says read-only
    return stream


def _repoint_log_handlers(old: dict[int, int], new: Sequence[object]) -> None:
    """Logging handlers made at import time hold the worker's streams: give them the client's."""
    logging = sys.modules.get("logging")
    if logging is None:
        return
    loggers = [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]
    for logger in loggers:
        for handler in getattr(logger, "handlers", ()):
            stream = getattr(handler, "stream", None)
            if isinstance(handler, logging.StreamHandler) and id(stream) in old:
                replacement = new[old[id(stream)]]
                if replacement is not None:
                    handler.stream = replacement
