"""Where tools may read and write: inside the workspace (and `allowed_paths`), never astro's own state.

Every path is resolved with its symbolic links before it is judged, so a link inside the workspace
that points elsewhere leads nowhere. Writes go through the one writer (security/writer.py) from
the root that contains the file: no link is followed below it, so swapping a folder for a link
between the check and the write makes the write fail instead of landing outside, and a final
symbolic link is replaced rather than followed.

astro's own state is protected from every tool whatever is allowed: `.astro/` (config, database,
team inbox), ASTRO_HOME (user config, keys, trust), the project's `.mcp.json`, and the files a hook
or MCP server runs (security/executed.py). Key stores (ASTRO_HOME, ~/.pgpass, ~/.ssh, ...:
security/secrets.py `secret_stores`) are not even read, listed or searched, even when `allowed_paths`
or the workspace itself contains them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from astro_cli.security import writer
from astro_cli.security.writer import Place

if TYPE_CHECKING:
    from astro_cli.workspace import AstroHome, Workspace

PROTECTED_ROOT_FILES = (".mcp.json",)


class PathRefused(Exception):
    """A path a tool may not use; the message is one sentence for the model and the user."""


def _inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


@dataclass(frozen=True)
class Confinement:
    workspace: Path
    roots: tuple[Path, ...]  # resolved: the workspace first, then allowed_paths
    protected: tuple[Path, ...]  # resolved: astro's own state
    secret: tuple[Path, ...] = ()  # resolved: key stores, never read

    @classmethod
    def for_workspace(cls, workspace: Workspace, home: AstroHome, allowed: Iterable[Path] = (),
                      executed: Iterable[Path] = ()) -> Confinement:
        """`executed`: files hooks and MCP servers run (security/executed.py), protected like the state."""
        root = workspace.root.resolve()
        roots = (root, *(Path(p).expanduser().resolve() for p in allowed))
        protected = (
            workspace.astro_dir.resolve(),
            home.root.resolve(),
            *((root / name).resolve() for name in PROTECTED_ROOT_FILES),
            *(Path(p).resolve() for p in executed),
        )
        import os

        from astro_cli.security.secrets import secret_stores

        return cls(root, roots, protected, secret_stores(home.root, os.environ))

    # --- judging -----------------------------------------------------------------------------
    def contains(self, resolved: Path) -> bool:
        """Inside the workspace or an allowed path, and not in a key store (what walks may visit)."""
        return any(_inside(resolved, root) for root in self.roots) and not self.is_secret(resolved)

    def is_secret(self, resolved: Path) -> bool:
        return any(_inside(resolved, store) for store in self.secret)

    def is_protected(self, resolved: Path) -> bool:
        return any(_inside(resolved, guarded) for guarded in self.protected)

    def describe(self, resolved: Path) -> str:
        try:
            return resolved.relative_to(self.workspace).as_posix() or "."
        except ValueError:
            return str(resolved)

    def resolve(self, raw: str | Path, must_exist: bool = False) -> Path:
        """The real path of `raw` (relative to the workspace), refused when it lies outside."""
        text = str(raw)
        if not text.strip():
            raise PathRefused("No path was given.")
        candidate = Path(text).expanduser()
        if not candidate.is_absolute():
            candidate = self.workspace / candidate
        resolved = self._as_workspace_path(text, candidate.resolve())
        if self.is_secret(resolved):
            raise PathRefused(f"'{text}' is a key store ({resolved}); no tool reads it.")
        if not self.contains(resolved):
            raise PathRefused(
                f"'{text}' is outside the workspace ({self.workspace}); file tools only work inside it "
                "(config 'allowed_paths' can add folders)."
            )
        if must_exist and not resolved.exists():
            raise PathRefused(f"'{text}' does not exist.")
        return resolved

    def _as_workspace_path(self, text: str, resolved: Path) -> Path:
        """How small models name the workspace: "/", "workspace" or "/workspace" for its root, its
        own folder's name ("project" for /home/me/project, from the environment message) too, and
        "/README.md" or "project/README.md" for a file in it. Read so only when the path as written
        is outside the workspace (or does not exist) and the workspace reading exists: never a way
        out of it."""
        if self.contains(resolved) and resolved.exists():
            return resolved
        name = text.strip().rstrip("/")
        if name in ("", "workspace", "/workspace", "<workspace>", self.workspace.name):
            return self.workspace
        own = self.workspace.name + "/"
        if self.workspace.name and name.startswith(own):
            inside = (self.workspace / name[len(own):]).resolve()
            if _inside(inside, self.workspace) and inside.exists():
                return inside
        if text.startswith("/") and not text.startswith("//"):
            inside = (self.workspace / text.lstrip("/")).resolve()
            if _inside(inside, self.workspace) and inside.exists():
                return inside
        return resolved

    def writable(self, raw: str | Path) -> Path:
        """Like resolve, and also refused when the path is astro's own state."""
        resolved = self.resolve(raw)
        if self.is_protected(resolved):
            raise PathRefused(
                f"'{raw}' is astro's own state ({self.describe(resolved)}: configuration, database, keys, "
                "trust, or a file a hook or MCP server runs); tools cannot change it. The researcher can edit it "
                "by hand."
            )
        return resolved

    def folder(self, path: Path, what: str) -> Path:
        """A feature's folder (memory/, notes/, papers/) as a real path, refused if a link leads it outside."""
        resolved = path.resolve()
        if not self.contains(resolved):
            raise PathRefused(
                f"{what} folder {path} leads outside the workspace (to {resolved}); astro will not write there."
            )
        if self.is_protected(resolved):
            raise PathRefused(f"{what} folder {path} leads into astro's own state; astro will not write there.")
        return resolved

    # --- writing -----------------------------------------------------------------------------
    def write_text(self, path: str | Path, text: str, replace: bool = True) -> Path:
        return Confinement.write_bytes(self, path, text.encode("utf-8"), replace)

    def place(self, path: str | Path) -> Place:
        """A writable path as the one writer's Place: below the root that holds it, nothing is followed."""
        target = self.writable(path)
        root = next(r for r in sorted(self.roots, key=lambda r: len(r.parts), reverse=True) if _inside(target, r))
        if target == root:
            raise PathRefused(f"'{path}' is a folder, not a file.")
        return Place.of(root, target)

    def write_bytes(self, path: str | Path, data: bytes, replace: bool = True) -> Path:
        """Atomically create (or, with `replace`, replace) a file inside the workspace; returns its real path."""
        place = self.place(path)
        try:
            writer.write_bytes(place, data, replace)
        except writer.LinkRefused as exc:
            raise PathRefused(f"{exc.strerror} ('{path}'); nothing was written.") from None
        return place.path
