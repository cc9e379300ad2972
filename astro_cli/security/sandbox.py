"""A fence for the commands astro runs (`run_bash`, hooks): bubblewrap on Linux, when it works.

Permission decides whether a command runs; the sandbox decides what it can touch once it does.
Inside it the whole file system is read-only except the workspace, `allowed_paths` and the
temporary folder; astro's own state in those (`.astro/`, `.mcp.json`, the files hooks and MCP
servers run) and ASTRO_HOME stay read-only; the key store reads as an empty file and the warm
worker's runtime folder as an empty folder. The command gets its own PID namespace, so every
process it starts ends with it (a `setsid` child included), and with `sandbox.network: false`
no network. `sandbox.enabled` and `sandbox.network` are read from the user's config only.

Where bubblewrap is missing or cannot start (no user namespaces, another OS), commands run as
before and astro says so once per process, in one sentence; `sandbox_report()` says which, for
`astro doctor`.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astro_cli.app import AppContext

log = logging.getLogger(__name__)
PROBE_TIMEOUT = 15.0
KEYS_FILE = "keys.yaml"
_ISOLATION = ["--unshare-pid", "--die-with-parent", "--new-session"]


@dataclass(frozen=True)
class SandboxReport:
    """Is the sandbox active for this folder, and why (one sentence for the researcher)."""

    ok: bool
    sentence: str


@dataclass(frozen=True)
class Fence:
    """What a sandboxed command may write, must not write, and must not read."""

    writable: tuple[Path, ...]
    read_only: tuple[Path, ...]
    hidden_files: tuple[Path, ...]
    hidden_folders: tuple[Path, ...]
    network: bool

    def arguments(self, cwd: Path) -> list[str]:
        """bubblewrap's options: later mounts cover earlier ones, so the guarded paths come last."""
        args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        for path in self.writable:
            args += ["--bind", str(path), str(path)]
        for path in self.read_only:
            args += ["--ro-bind", str(path), str(path)]
        for path in self.hidden_files:
            args += ["--ro-bind", "/dev/null", str(path)]
        for path in self.hidden_folders:
            args += ["--tmpfs", str(path)]
        args += _ISOLATION
        if not self.network:
            args.append("--unshare-net")
        return [*args, "--chdir", str(cwd)]


def probe(bwrap: str) -> str | None:
    """None when bubblewrap can start a sandbox here; otherwise its complaint, in one line."""
    try:
        done = subprocess.run([bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *_ISOLATION,
                               "true"], capture_output=True, text=True, timeout=PROBE_TIMEOUT,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    if done.returncode == 0:
        return None
    lines = (done.stderr or "").strip().splitlines()
    return lines[0] if lines else f"exit code {done.returncode}"


class Sandbox:
    """The app's sandbox (one per AppContext): probed once, told once."""

    def __init__(self, app: AppContext) -> None:
        self.app = app
        self._lock = threading.Lock()
        self._report: SandboxReport | None = None
        self._bwrap: str | None = None
        self._told = False

    def report(self) -> SandboxReport:
        with self._lock:
            if self._report is None:
                self._report = self._assess()
                log.debug("sandbox: %s", self._report.sentence)
            return self._report

    def _assess(self) -> SandboxReport:
        settings = self.app.settings
        if not settings.typed["sandbox.enabled"]:
            return SandboxReport(False, f"commands run without a sandbox: config 'sandbox.enabled' is false "
                                        f"({settings.source('sandbox.enabled')}).")
        if not sys.platform.startswith("linux"):
            return SandboxReport(False, f"commands run without a sandbox: astro has none for {sys.platform} yet "
                                        "(bubblewrap is Linux only).")
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            return SandboxReport(False, "commands run without a sandbox: bubblewrap is not installed "
                                        "(apt install bubblewrap, or your system's package).")
        problem = probe(bwrap)
        if problem is not None:
            return SandboxReport(False, f"commands run without a sandbox: bubblewrap cannot start one here "
                                        f"({problem}); user namespaces may be disabled.")
        self._bwrap = bwrap
        network = "with" if settings.typed["sandbox.network"] else "without"
        return SandboxReport(True, f"commands run in a bubblewrap sandbox: only the workspace and the temporary "
                                   f"folder are writable, astro's state is read-only, keys are hidden, {network} "
                                   "network.")

    @property
    def active(self) -> bool:
        return self.report().ok

    def tell_once(self) -> str | None:
        """The sentence to show the researcher the first time a command runs unsandboxed; None after."""
        report = self.report()
        with self._lock:
            if report.ok or self._told:
                return None
            self._told = True
        return report.sentence

    def fence(self) -> Fence:
        app = self.app
        home = app.home.root
        home.mkdir(parents=True, exist_ok=True)  # it must exist to be mounted read-only
        root = app.workspace.root.resolve()
        writable = [Path(path) for path in _temporary_folders()]
        writable += [root, *(p.resolve() for p in app.allowed_roots())]
        guarded = [app.workspace.astro_dir, root / ".mcp.json", *app.executed_files, home]
        from astro_cli.worker.paths import runtime_folder

        return Fence(
            writable=_existing(writable),
            read_only=_existing(path.resolve() for path in guarded),
            hidden_files=_existing([(home / KEYS_FILE).resolve()]),
            hidden_folders=_existing([Path(runtime_folder(os.environ)).resolve()]),
            network=bool(app.settings.typed["sandbox.network"]),
        )

    def wrap(self, argv: list[str], cwd: Path) -> list[str]:
        """`argv` to run inside the sandbox (unchanged when there is none)."""
        if not self.active or self._bwrap is None:
            return argv
        return [self._bwrap, *self.fence().arguments(cwd), *argv]


def _temporary_folders() -> list[str]:
    folders = ["/tmp", "/var/tmp"]
    tmpdir = os.environ.get("TMPDIR")
    if tmpdir and os.path.isabs(tmpdir):
        folders.append(tmpdir)
    return folders


def _existing(paths: Iterable[Path]) -> tuple[Path, ...]:
    seen: list[Path] = []
    for path in paths:
        if path not in seen and os.path.lexists(path):
            seen.append(path)
    return tuple(seen)


def sandbox(app: AppContext) -> Sandbox:
    return app.service(Sandbox, lambda: Sandbox(app))


def sandbox_report(app: AppContext) -> SandboxReport:
    """Whether run_bash and hooks run in the sandbox here, and why: ok flag and one sentence (astro doctor)."""
    return sandbox(app).report()
