"""One sandbox for every command astro runs (`run_bash`, hooks, MCP stdio servers): bubblewrap on Linux.

Permission decides whether a command runs; the sandbox decides what it can see and touch once it
does. What it hides and allows is the mount plan in security/sandbox_plan.py (deny by default: the
home folders, ASTRO_HOME and the runtime sockets are empty; the workspace is bound back). It is the
same for root and for users: a user namespace as the caller's uid with every capability dropped,
so no command can unmount what covers a key. With `sandbox.network: false` it also has no network
and cannot open Unix sockets (security/sandbox_seccomp.py). `sandbox.enabled` and `sandbox.network`
are read from the user's config only.

Where bubblewrap cannot make a user namespace, the sandbox still runs, without one (a command run
as root could then undo it), and astro says so once per process and in `astro doctor`. Where it
is missing or cannot start at all (another OS), commands run as before and astro says so too.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from astro_cli.pids import pid_alive
from astro_cli.security import writer
from astro_cli.security.sandbox_hold import Placeholders
from astro_cli.security.sandbox_plan import (
    DEEP,
    RUNTIME_FOLDERS,
    SHALLOW,
    TEMPORARY_FOLDERS,
    Fence,
    existing,
    home_folders,
    inside,
    path_prefixes,
    socket_variables,
)
from astro_cli.security.sandbox_seccomp import unix_socket_filter

if TYPE_CHECKING:
    from astro_cli.app import AppContext

log = logging.getLogger(__name__)
PROBE_TIMEOUT = 15.0
SKILLS_FOLDER = "skills"
FOLDER_PREFIX = "astro-sandbox-"  # + the owner's pid: a later astro removes the folders of ended ones
__all__ = ["Fence", "Sandbox", "SandboxReport", "probe", "sandbox", "sandbox_report", "server_folders"]


@dataclass(frozen=True)
class SandboxReport:
    """Is the sandbox active for this folder, and why (one sentence for the researcher).

    `weaker`: active, but without a user namespace; told once like a missing sandbox."""

    ok: bool
    sentence: str
    weaker: bool = False


def probe(bwrap: str, isolation: list[str]) -> str | None:
    """None when bubblewrap can start a sandbox with `isolation` here; otherwise its complaint, in one line."""
    try:
        done = subprocess.run([bwrap, *isolation, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                               "--tmpfs", "/tmp", "--remount-ro", "/tmp", "true"],
                              capture_output=True, text=True, timeout=PROBE_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as exc:
        return str(exc)
    if done.returncode == 0:
        return None
    lines = (done.stderr or "").strip().splitlines()
    return lines[0] if lines else f"exit code {done.returncode}"


class Sandbox:
    """The app's sandbox (one per AppContext): probed once, told once, one private /tmp per process."""

    def __init__(self, app: AppContext) -> None:
        self.app = app
        self._lock = threading.Lock()
        self._report: SandboxReport | None = None
        self._bwrap: str | None = None
        self._user_namespace = True
        self._told = False
        self._folder: Path | None = None  # this process's: tmp/ (the commands' /tmp) and unix.bpf
        self._placeholders = Placeholders()

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
        network = "with" if settings.typed["sandbox.network"] else "without"
        deep_problem = probe(bwrap, DEEP)
        if deep_problem is None:
            self._bwrap = bwrap
            return SandboxReport(True, f"commands run in a bubblewrap sandbox, {network} network: only the "
                                       "workspace and a private /tmp are writable, home folders and keys are "
                                       "hidden, no capabilities even as root.")
        log.debug("sandbox: no user namespace: %s", deep_problem)
        problem = probe(bwrap, SHALLOW)
        if problem is not None:
            return SandboxReport(False, f"commands run without a sandbox: bubblewrap cannot start one here "
                                        f"({problem}).")
        self._bwrap, self._user_namespace = bwrap, False
        root = " (astro runs as root: a command could undo it)" if os.geteuid() == 0 else ""
        return SandboxReport(True, f"commands run in a weaker bubblewrap sandbox, {network} network, without a "
                                   f"user namespace ({deep_problem}){root}; enable unprivileged user "
                                   "namespaces for the full one.", weaker=True)

    @property
    def active(self) -> bool:
        return self.report().ok

    def tell_once(self) -> str | None:
        """The sentence to show the researcher the first time a command runs unsandboxed or in the weaker
        sandbox; None after."""
        report = self.report()
        with self._lock:
            if (report.ok and not report.weaker) or self._told:
                return None
            self._told = True
        return report.sentence

    @contextmanager
    def holding(self) -> Iterator[tuple[Path, ...]]:
        """Around a command the model wrote: the files hooks and servers run that do not exist yet are held
        by empty placeholders (security/sandbox_hold.py); yields them, for `wrap(..., held=...)`."""
        if not self.active:
            yield ()
            return
        writable = [self.app.workspace.root.resolve(), *(p.resolve() for p in self.app.allowed_roots())]
        wanted = []
        for path in (Path(p).resolve() for p in self.app.executed_files):
            root = max((w for w in writable if inside(path, w) and w != path), key=lambda w: len(w.parts),
                       default=None)
            if root is not None and not os.path.lexists(path):
                wanted.append((path, root))
        with self._placeholders.held(wanted) as standing:
            yield standing

    def fence(self, env: Mapping[str, str] | None = None, needed: Iterable[Path] = (),
              held: Iterable[Path] = ()) -> Fence:
        """What a command may see now (`needed`: more folders it must read, e.g. an MCP server's own;
        `held`: placeholders to bind read-only)."""
        from astro_cli.security.secrets import secret_stores
        from astro_cli.worker.paths import runtime_folder

        app = self.app
        env = os.environ if env is None else env
        home = app.home.root.resolve()
        home.mkdir(parents=True, exist_ok=True)  # it must exist to be covered
        root = app.workspace.root.resolve()
        hidden = [*home_folders(os.environ), *existing(Path(p) for p in RUNTIME_FOLDERS),
                  *existing([Path(runtime_folder(os.environ)).resolve()])]
        tmpdir = os.environ.get("TMPDIR", "")
        temporary = existing(Path(p).resolve() for p in [*TEMPORARY_FOLDERS, *([tmpdir] if os.path.isabs(tmpdir)
                                                                               else [])])
        visible = [p.resolve() for p in needed if os.path.isabs(p)]
        state = existing([app.workspace.astro_dir.resolve(), (root / ".mcp.json").resolve()])
        return Fence(
            hidden=tuple(existing(hidden)),
            temporary=tuple(temporary),
            private_tmp=self._own("tmp"),
            needed=tuple(path_prefixes(os.environ, hidden) + existing(
                p for p in visible if any(inside(p, h) for h in [*hidden, *temporary]))),
            writable=tuple(existing([root, *(p.resolve() for p in app.allowed_roots())])),
            astro_home=home,
            home_skills=tuple(existing([home / SKILLS_FOLDER])),
            secret=secret_stores(home, os.environ),
            state=(*state, *(Path(p).resolve() for p in app.executed_files)),
            held=tuple(held),
            network=bool(app.settings.typed["sandbox.network"]),
            user_namespace=self._user_namespace,
            sockets_filtered=unix_socket_filter() is not None,
            unset=tuple(dict.fromkeys([*socket_variables(os.environ), *socket_variables(env)])),
        )

    def _own(self, name: str) -> Path | None:
        """`name` in this process's own folder (made on first use, outside what commands see, removed at
        exit): `tmp` is the commands' /tmp, kept from command to command."""
        with self._lock:
            if self._folder is None:
                try:
                    remove_orphans(Path(tempfile.gettempdir()))
                    self._folder = Path(tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-"))
                    (self._folder / "tmp").mkdir()
                    self._folder.joinpath("tmp").chmod(0o700)
                except OSError as exc:
                    log.debug("sandbox: no folder of its own (%s); each command gets an empty /tmp", exc)
                    return None
                self.app.on_close(self._remove_folder)
            return self._folder / name

    def _remove_folder(self) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, onerror=lambda _f, path, exc: log.debug("sandbox: cannot remove %s: %s",
                                                                                path, exc[1]))

    def _socket_filter(self) -> Path | None:
        """The seccomp filter refusing Unix sockets (security/sandbox_seccomp.py), written once; None where
        this machine has none."""
        program = unix_socket_filter()
        path = self._own("unix.bpf") if program else None
        if program and path and not path.exists():
            writer.write_file(path, program)  # in astro's own private folder for this process
        return path

    def wrap(self, argv: list[str], cwd: Path, env: Mapping[str, str] | None = None,
             needed: Iterable[Path] = (), held: Iterable[Path] = ()) -> list[str]:
        """`argv` to run inside the sandbox (unchanged when there is none)."""
        if not self.active or self._bwrap is None:
            return argv
        fence = self.fence(env, [*needed, cwd], held)
        bwrap = [self._bwrap, *fence.arguments(cwd), *argv]
        program = None if fence.network else self._socket_filter()
        if program is None:
            return bwrap
        # bwrap reads the filter from a descriptor: the shell opens it as fd 3 and becomes bwrap
        return ["/bin/sh", "-c", 'exec "$@" 3<"$0"', str(program), bwrap[0], "--seccomp", "3", *bwrap[1:]]


def remove_orphans(temporary: Path) -> None:
    """Remove the sandbox folders of astro processes that ended without cleaning up (killed, power cut).

    A folder's name carries its owner's pid; only this user's own folders (not links) whose process is
    gone are removed, so another user's look-alike in a shared /tmp is never touched."""
    try:
        candidates = [entry for entry in os.scandir(temporary) if entry.name.startswith(FOLDER_PREFIX)]
    except OSError as exc:
        log.debug("sandbox: cannot list %s: %s", temporary, exc)
        return
    for entry in candidates:
        owner = entry.name[len(FOLDER_PREFIX):].split("-", 1)[0]
        try:
            mine = entry.is_dir(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_uid == os.getuid()
        except OSError:
            continue
        if mine and owner.isdigit() and not pid_alive(int(owner)):
            shutil.rmtree(entry.path, onerror=lambda _f, path, exc: log.debug(
                "sandbox: cannot remove the orphan %s: %s", path, exc[1]))


def server_folders(argv: list[str]) -> list[Path]:
    """The folders a server's command line names by absolute path: a script's folder, a program's
    installation prefix (`~/venvs/mcp/bin/server` gives `~/venvs/mcp`)."""
    folders: list[Path] = []
    for word in argv:
        if os.path.isabs(word) and os.path.exists(word):
            folder = Path(word).resolve()
            folder = folder if folder.is_dir() else folder.parent
            folders.append(folder.parent if folder.name == "bin" else folder)
    return folders


def sandbox(app: AppContext) -> Sandbox:
    return app.service(Sandbox, lambda: Sandbox(app))


def sandbox_report(app: AppContext) -> SandboxReport:
    """Whether commands run in the sandbox here, and why: ok flag and one sentence (astro doctor)."""
    return sandbox(app).report()
