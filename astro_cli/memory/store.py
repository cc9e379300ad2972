"""The memory folder: `<workspace>/memory/<slug>.md` files (format.py) created, updated and forgotten.

The files are the truth and a researcher edits them by hand, so nothing astro does destroys text:
every write is atomic (temporary file and rename), an update keeps the previous text as the next
`<slug>_vN.md`, a broken file being overwritten goes to `memory/archive/` as it was, and forgetting
moves files to `memory/archive/`. Writers take a lock, so two agents saving at once never lose an
update.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from astro_cli.memory.format import (
    VERSION_RE,
    Clock,
    Memory,
    MemoryFileError,
    MemoryInputError,
    broken_warning,
    read_memory,
    utc_now,
    validate_fields,
    validate_slug,
)
from astro_cli.memory.index import INDEX_NAME, NOT_MEMORIES, write_index
from astro_cli.security import writer
from astro_cli.security.writer import Place

LOCK_NAME = ".lock"
ARCHIVE_DIR = "archive"


@dataclass
class SaveResult:
    action: str  # created | updated | unchanged
    memory: Memory
    archived: Path | None = None  # the previous text, kept as <slug>_vN.md
    replaced: Memory | None = None  # the memory this one retires

    def message(self, root: Path) -> str:
        where = _rel(self.memory.path, root)
        if self.action == "unchanged":
            text = f"Memory '{self.memory.slug}' is unchanged (same type, description and content)."
        elif self.action == "updated":
            text = f"Updated memory '{self.memory.slug}' ({where})"
            text += f"; the previous text is kept as {_rel(self.archived, root)}." if self.archived else "."
        else:
            text = f"Created memory '{self.memory.slug}' ({where})."
        if self.replaced is not None:
            text += f" '{self.replaced.slug}' is now marked {self.replaced.mark}."
        return text


def _rel(path: Path | None, root: Path) -> str:
    if path is None:
        return ""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


class MemoryStore:
    """Reads and writes one memory folder; every change rewrites MEMORY.md."""

    def __init__(
        self,
        root: Path,
        clock: Clock = utc_now,
        warn: Callable[[str], None] | None = None,
        after_change: Callable[[], None] | None = None,
        guard: Callable[[], None] | None = None,
    ) -> None:
        self.root = root
        # Raises when the folder may not be written (a memory/ that links out of the workspace).
        self.guard = guard
        self.clock = clock
        self.warn = warn or (lambda text: None)
        # Called after every change; by default the index is rebuilt from every file. The memory
        # service passes its catalog's refresh instead, which re-reads only the changed files.
        self.after_change = after_change or self.refresh_index
        self._lock = threading.RLock()

    def path_of(self, slug: str) -> Path:
        return self.root / f"{slug}.md"

    def memory_files(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        return sorted(p for p in self.root.glob("*.md") if p.name not in NOT_MEMORIES and not p.name.startswith("."))

    def load_all(self) -> list[Memory]:
        """Every readable memory (current ones, versions, replaced ones); broken files are skipped with a warning."""
        found = []
        for path in self.memory_files():
            try:
                found.append(read_memory(path))
            except (MemoryFileError, OSError) as exc:
                self.warn(broken_warning(path, exc))
        return found

    def get(self, slug: str) -> Memory | None:
        path = self.path_of(slug)
        if "/" in slug or not path.is_file():
            return None
        try:
            return read_memory(path)
        except (MemoryFileError, OSError) as exc:
            raise MemoryFileError(broken_warning(path, exc)) from None

    # --- changes ---------------------------------------------------------------------------
    @contextmanager
    def _locked(self) -> Iterator[None]:
        """One writer at a time, across threads (the lock) and processes (flock on memory/.lock).

        Without it two agents updating the same memory could both archive the same old text and one
        new text would be overwritten unseen.
        """
        with self._lock:
            if self.guard is not None:
                try:
                    self.guard()
                except Exception as exc:  # noqa: BLE001 - the guard's refusal, as this module's error
                    raise MemoryFileError(str(exc)) from None
            self.root.mkdir(parents=True, exist_ok=True)
            try:
                import fcntl
            except ImportError:  # Windows: threads are still serialised
                yield
                return
            with writer.open_append(Place(self.root, (LOCK_NAME,))) as handle:
                fcntl.flock(handle, fcntl.LOCK_EX)
                try:
                    yield
                finally:
                    fcntl.flock(handle, fcntl.LOCK_UN)

    def save(self, slug: str | None, kind: str | None, description: str | None, body: str | None,
             replaces: str | None = None) -> SaveResult:
        """Create or update a memory; an update keeps the old text as the next `<slug>_vN.md`.

        The fields may come straight from the model's arguments: each is validated here."""
        slug = validate_slug(slug)
        kind, description, body = validate_fields(kind, description, body)
        if replaces:
            replaces = validate_slug(replaces)
        with self._locked():
            result = self._save(slug, kind, description, body, replaces)
        self.after_change()
        return result

    def _save(self, slug: str, kind: str, description: str, body: str, replaces: str | None) -> SaveResult:
        retired = self._retiring(slug, replaces)
        now = self.clock()
        path = self.path_of(slug)
        old: Memory | None = None
        archived: Path | None = None
        if path.exists():
            try:
                old = read_memory(path)
            except (MemoryFileError, OSError):
                archived = self._keep_broken(path)
        new = Memory(slug, kind, description, body, created=old.created if old else now, updated=now, path=path)
        if old is not None:
            if old.same_content(new) and not old.superseded_by:
                if retired is None:
                    return SaveResult("unchanged", old)
                new = old
            else:
                archived = self.archive_version(old)
        if new is not old:
            self._write(path, new.to_text())
        replaced = None
        if retired is not None:
            replaced = replace(retired, superseded_by=slug)
            self._write(retired.path or self.path_of(retired.slug), replaced.to_text())
        return SaveResult("updated" if old is not None or archived else "created", new, archived, replaced)

    def _retiring(self, slug: str, replaces: str | None) -> Memory | None:
        if not replaces:
            return None
        if replaces == slug:
            raise MemoryInputError("'replaces' names the memory being saved; leave it out to update it in place.")
        retired = self.get(replaces)
        if retired is None:
            raise MemoryInputError(f"there is no memory '{replaces}' to replace.")
        return retired

    def archive_version(self, old: Memory) -> Path:
        """Keep `old` as the next free `<slug>_vN.md`, marked as updated by `<slug>`.

        The one writer links the finished version to its name only if no other writer took that
        number first (replace=False), so no reader ever sees a half-written version.
        """
        number = 1 + max((int(m.group("n")) for p in self.root.glob(f"{old.slug}_v*.md")
                          if (m := VERSION_RE.match(p.stem)) and m.group("base") == old.slug), default=0)
        while True:
            target = self.root / f"{old.slug}_v{number}.md"
            version = replace(old, slug=target.stem, superseded_by=old.superseded_by or old.slug, path=target)
            try:
                writer.write_text(Place.of(self.root, target), version.to_text(), replace=False)
                return target
            except writer.NameTaken:
                number += 1

    def _write(self, path: Path, text: str) -> None:
        """A memory file, through the one writer: no link below the memory folder is followed."""
        writer.write_text(Place.of(self.root, path), text)

    def _keep_broken(self, path: Path) -> Path:
        """A hand-broken file about to be overwritten goes to archive/ as it is, so no text is lost."""
        target = self._archive_target(path.stem + ".broken")
        writer.rename(Place.of(self.root, path), Place.of(self.root, target))
        return target

    def _archive_target(self, stem: str) -> Path:
        folder = self.root / ARCHIVE_DIR
        target = folder / f"{stem}.md"
        if target.exists():
            target = folder / f"{stem}.{self.clock().strftime('%Y%m%dT%H%M%S')}.md"
        number = 2
        while target.exists():
            target = folder / f"{stem}.{self.clock().strftime('%Y%m%dT%H%M%S')}-{number}.md"
            number += 1
        return target

    def forget(self, slug: str) -> list[Path]:
        """Move a memory and its versions to memory/archive/ (out of the index and the prompt, not deleted)."""
        if "/" in slug or not self.path_of(slug).is_file():
            raise MemoryInputError(f"there is no memory '{slug}'; `astro memory list` shows them.")
        with self._locked():
            moved = self._forget(slug)
        self.after_change()
        return moved

    def _forget(self, slug: str) -> list[Path]:
        moving = [self.path_of(slug)]
        moving += sorted(p for p in self.root.glob(f"{slug}_v*.md")
                         if (m := VERSION_RE.match(p.stem)) and m.group("base") == slug)
        moved = []
        for path in moving:
            target = self._archive_target(path.stem)
            writer.rename(Place.of(self.root, path), Place.of(self.root, target))
            moved.append(target)
        return moved

    def refresh_index(self) -> None:
        write_index(self.root / INDEX_NAME, self.load_all())

