"""What a sandboxed command sees: the bubblewrap mount plan, built from paths alone (no app, no I/O but stat).

Deny by default. The whole file system is read-only; every home folder ($HOME, /root, /home), the
per-user runtime folders (/run/user: ssh-agent, D-Bus, keyring sockets), ASTRO_HOME and the warm
worker's folder are empty; /tmp, /var/tmp and $TMPDIR are one private folder of this astro
process. Then, in this order, later mounts covering earlier ones:

1. what commands need from the hidden places, read-only: the installation prefix of each PATH
   folder there (a conda or venv in your home), your user skills;
2. the workspace and `allowed_paths`, writable;
3. ASTRO_HOME again (empty and read-only, user skills bound back) and the key stores
   (security/secrets.py `secret_stores`) again, in case a writable place contains them;
4. astro's state in the writable places, read-only and rename-proof: each folder between the
   writable root and a protected file is made a mount point (a mount point cannot be renamed or
   removed); a protected path that does not exist yet is held, for a command the model wrote, by
   an empty placeholder that security/sandbox_hold.py makes before and removes after.

The command runs in new user, PID, IPC and UTS namespaces as the caller's own uid with every
capability dropped, so even root inside cannot unmount or remount any of this.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

# Namespaces and privileges: the same for root and for users.
DEEP = ["--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--cap-drop", "ALL",
        "--die-with-parent", "--new-session"]
# Without a user namespace (a kernel or distribution that forbids them): what astro ran before.
SHALLOW = ["--unshare-pid", "--die-with-parent", "--new-session"]
HOME_FOLDERS = ("/root", "/home")
RUNTIME_FOLDERS = ("/run/user",)
TEMPORARY_FOLDERS = ("/tmp", "/var/tmp")
# Variables that lead a command to an agent or a session bus; also dropped: any variable naming a socket.
SOCKET_VARIABLES = ("SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS",
                    "XDG_RUNTIME_DIR", "WAYLAND_DISPLAY", "DISPLAY", "XAUTHORITY", "PULSE_SERVER",
                    "DOCKER_HOST", "KRB5CCNAME")


def inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def depth(path: Path) -> int:
    return len(path.parts)


@dataclass(frozen=True)
class Fence:
    """What a sandboxed command may see, write and reach (all paths absolute and resolved)."""

    hidden: tuple[Path, ...]  # shown as empty folders
    temporary: tuple[Path, ...]  # /tmp, /var/tmp, $TMPDIR: all the private folder
    private_tmp: Path | None  # this astro process's own temporary folder (None: a fresh tmpfs)
    needed: tuple[Path, ...]  # bound back read-only from the hidden places
    writable: tuple[Path, ...]
    astro_home: Path
    home_skills: tuple[Path, ...]  # bound back inside ASTRO_HOME, read-only
    secret: tuple[Path, ...]  # key stores: hidden again where a writable or needed place holds them
    state: tuple[Path, ...]  # astro's state inside writable places: read-only, rename-proof
    network: bool
    held: tuple[Path, ...] = ()  # empty placeholders for protected paths that do not exist yet: read-only
    user_namespace: bool = True
    unset: tuple[str, ...] = ()
    sockets_filtered: bool = True  # without network, socket(AF_UNIX) is refused (security/sandbox_seccomp.py)

    def arguments(self, cwd: Path) -> list[str]:
        """bubblewrap's options: later mounts cover earlier ones."""
        args = [*(DEEP if self.user_namespace else SHALLOW)]
        if self.user_namespace:
            args += ["--uid", str(os.getuid()), "--gid", str(os.getgid())]
        if not self.network:
            args.append("--unshare-net")
        for name in self.unset:
            args += ["--unsetenv", name]
        args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        for path in sorted(self.hidden, key=depth):
            args += ["--tmpfs", str(path)]
        for path in self.temporary:
            args += ["--bind", str(self.private_tmp), str(path)] if self.private_tmp else ["--tmpfs", str(path)]
        for path in sorted(self.needed, key=depth):
            args += ["--ro-bind", str(path), str(path)]
        for path in sorted(self.writable, key=depth):
            args += ["--bind", str(path), str(path)]
        args += ["--tmpfs", str(self.astro_home)]
        for path in self.home_skills:
            args += ["--ro-bind", str(path), str(path)]
        args += ["--remount-ro", str(self.astro_home)]
        args += self._hide_again()
        args += self._guard_state()
        return [*args, "--chdir", str(cwd)]

    def _hide_again(self) -> list[str]:
        """Key stores inside a place bound back (allowed_paths: [~], a workspace that is your home)."""
        args: list[str] = []
        shown = (*self.writable, *self.needed)
        for store in sorted(self.secret, key=depth):
            if inside(store, self.astro_home) or not any(inside(store, place) for place in shown):
                continue
            if store.is_dir():
                args += ["--tmpfs", str(store), "--remount-ro", str(store)]
            elif store.exists():
                args += ["--ro-bind", "/dev/null", str(store)]
        return args

    def _guard_state(self) -> list[str]:
        """Read-only state and placeholders, their folders pinned as mount points first (a later bind of a
        folder would cover what is bound inside it). A missing path no placeholder holds is pinned only."""
        pins: set[Path] = set()
        guards: set[Path] = set()
        for path in (*self.state, *self.held):
            root = self.writable_root(path)
            if root is None or path == root:
                continue
            present = path if os.path.lexists(path) else None
            deepest = path if present else first_missing(path, root) or path
            pins.update(folder for folder in deepest.parents if depth(folder) > depth(root))
            if present:
                guards.add(path)
        args: list[str] = []
        for folder in sorted(pins - guards, key=depth):
            args += ["--bind", str(folder), str(folder)]
        for path in sorted(guards, key=depth):
            args += ["--ro-bind", str(path), str(path)]
        return args

    def writable_root(self, path: Path) -> Path | None:
        """The innermost writable place holding `path`."""
        return max((w for w in self.writable if inside(path, w)), key=depth, default=None)

    def describe(self) -> tuple[str, str]:
        """(what a command may use, what it cannot see or change), each in words, for `astro doctor`."""
        writes = "the workspace" + (" and allowed_paths" if len(self.writable) > 1 else "")
        reads = "the system folders" + (", and from hidden folders only " + ", ".join(_short(p) for p in self.needed)
                                        if self.needed else "") + (", your user skills" if self.home_skills else "")
        network = ("the network" if self.network else "no network and no Unix sockets" if self.sockets_filtered
                   else "no network (socket files it can see stay reachable: no filter for this machine)")
        allowed = f"writing {writes} and a private /tmp; reading {reads}; {network}"
        hidden = ", ".join(_short(p) for p in self.hidden)
        power = ("no capabilities, even as root" if self.user_namespace
                 else "NO user namespace, so a command run as root could undo all this")
        hides = (f"{hidden} and ASTRO_HOME (shown empty); key stores, even inside the workspace; socket variables "
                 f"(SSH_AUTH_SOCK, ...); astro's state and the files hooks run stay read-only; {power}")
        return allowed, hides


def _short(path: Path) -> str:
    home = Path(os.path.expanduser("~"))
    return "~/" + path.relative_to(home).as_posix() if path != home and inside(path, home) else str(path)


def first_missing(path: Path, root: Path) -> Path | None:
    """The first component of `path` below `root` that does not exist, or None."""
    current = root
    for part in path.relative_to(root).parts:
        current = current / part
        if not os.path.lexists(current):
            return current
    return None


def home_folders(env: Mapping[str, str]) -> list[Path]:
    """Every user's home: $HOME, /root, /home (those that exist)."""
    found = [Path(env.get("HOME") or os.path.expanduser("~")), *map(Path, HOME_FOLDERS)]
    return existing(path.resolve() for path in found if path.is_absolute() and str(path) != "/")


def path_prefixes(env: Mapping[str, str], hidden: Iterable[Path]) -> list[Path]:
    """The installation prefix of each PATH folder inside a hidden place (`~/miniconda3/bin` gives
    `~/miniconda3`); a PATH folder directly in a hidden place (`~/bin`) gives itself."""
    hidden = list(hidden)
    prefixes: list[Path] = []
    for entry in (env.get("PATH") or "").split(os.pathsep):
        if not entry or not os.path.isabs(entry) or not os.path.isdir(entry):
            continue
        folder = Path(entry).resolve()
        owner = next((h for h in hidden if inside(folder, h) and folder != h), None)
        if owner is None:
            continue
        prefix = folder.parent if folder.name == "bin" else folder
        prefixes.append(folder if prefix == owner else prefix)
    return [p for p in existing(prefixes) if not any(p != q and inside(p, q) for q in prefixes)]


def socket_variables(env: Mapping[str, str]) -> list[str]:
    """Variables to drop: the agents' and buses' own, and any whose value is the path of a socket."""
    names = [name for name in SOCKET_VARIABLES if name in env]
    for name, value in env.items():
        path = value.removeprefix("unix:path=").split(",")[0]
        if name not in names and path.startswith("/") and _is_socket(path):
            names.append(name)
    return names


def _is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def existing(paths: Iterable[Path]) -> list[Path]:
    seen: list[Path] = []
    for path in paths:
        if path not in seen and os.path.lexists(path):
            seen.append(path)
    return seen
