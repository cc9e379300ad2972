"""Memory files: `<workspace>/memory/<slug>.md`, YAML frontmatter and a Markdown body.

The files are the truth: a researcher reads and edits them by hand, so parsing is lenient where it
can be (a missing `updated` falls back to the file's mtime) and refuses only what would make the
memory meaningless (no description, an unknown type, unreadable YAML). Every write is atomic, an
update keeps the previous text as `<slug>_vN.md`, and forgetting moves files to `memory/archive/`:
nothing a researcher wrote is ever destroyed by astro.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import yaml

from astro_cli.memory.index import write_index
from astro_cli.tools.files import atomic_write

MEMORY_TYPES = ("preference", "feedback", "project", "reference")
INDEX_NAME = "MEMORY.md"
ARCHIVE_DIR = "archive"
MAX_SLUG = 64
MAX_DESCRIPTION = 200
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
VERSION_RE = re.compile(r"^(?P<base>.+)_v(?P<n>\d+)$")

Clock = Callable[[], datetime]
# libyaml's safe loader is ~10x faster, which is what makes a cold start with 2,000 memories short.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def utc_now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


class MemoryFileError(Exception):
    """A memory file that cannot be read as a memory; the message says why, in one sentence."""


class MemoryInputError(Exception):
    """A slug, type, description or content that cannot be saved; one sentence for the model or user."""


@dataclass(frozen=True)
class Memory:
    slug: str
    type: str
    description: str
    body: str
    created: datetime
    updated: datetime
    superseded_by: str | None = None
    path: Path | None = None

    @property
    def base_slug(self) -> str:
        """`planck_v2` -> `planck`: versions share their memory's base slug."""
        match = VERSION_RE.match(self.slug)
        return match.group("base") if match else self.slug

    @property
    def is_version(self) -> bool:
        return VERSION_RE.match(self.slug) is not None

    @property
    def mark(self) -> str:
        """`[updated]` for an archived version, `[updated -> new-slug]` for a memory replaced by another."""
        if not self.superseded_by:
            return ""
        if self.superseded_by == self.base_slug:
            return "[updated]"
        return f"[updated -> {self.superseded_by}]"

    def same_content(self, other: Memory) -> bool:
        return (self.type, self.description, self.body.strip()) == (other.type, other.description, other.body.strip())

    def to_text(self) -> str:
        lines = [
            "---",
            f"slug: {_scalar(self.slug)}",
            f"description: {_scalar(self.description)}",
            f"type: {self.type}",
            f"created: {format_time(self.created)}",
            f"updated: {format_time(self.updated)}",
        ]
        if self.superseded_by:
            lines.append(f"superseded_by: {_scalar(self.superseded_by)}")
        lines.append("---")
        return "\n".join(lines) + "\n\n" + self.body.strip("\n") + "\n"

    def index_line(self) -> str:
        line = f"- [{self.type}] {self.slug}: {self.description}"
        return f"{line} {self.mark}" if self.mark else line


def _scalar(value: str) -> str:
    """A YAML scalar on one line, quoted only when plain style would change its meaning."""
    dumped = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10**9)
    return dumped.removesuffix("\n").removesuffix("\n...").strip()


def format_time(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _as_time(value: Any, field: str) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise MemoryFileError(f"'{field}' is not a date ({value!r}); use e.g. 2025-06-01T12:00:00Z.") from None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)
    raise MemoryFileError(f"'{field}' is not a date ({value!r}); use e.g. 2025-06-01T12:00:00Z.")


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(frontmatter mapping, body) of a `---`-fenced Markdown file; MemoryFileError if there is none."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---\n"):
        raise MemoryFileError("it does not start with a '---' frontmatter block.")
    end = text.find("\n---", 3)
    while end >= 0 and text[end + 4 : end + 5] not in ("", "\n"):
        end = text.find("\n---", end + 4)
    if end < 0:
        raise MemoryFileError("its frontmatter block is not closed with '---'.")
    try:
        data = yaml.load(text[4:end], Loader=_LOADER)  # noqa: S506 - a safe loader, the C one when present
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" (line {where.line + 2})" if where is not None else ""
        raise MemoryFileError(f"its frontmatter is not valid YAML{line}.") from None
    if not isinstance(data, dict):
        raise MemoryFileError("its frontmatter is not a YAML mapping of keys to values.")
    return data, text[end + 4 :].lstrip("\n")


def parse_memory(text: str, path: Path, mtime: float | None = None) -> Memory:
    """A Memory from a file's text; the file name is the slug. MemoryFileError names what is wrong."""
    data, body = split_frontmatter(text)
    kind = str(data.get("type") or "").strip().lower()
    if kind not in MEMORY_TYPES:
        raise MemoryFileError(f"its type is {data.get('type')!r}; use one of {', '.join(MEMORY_TYPES)}.")
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise MemoryFileError("it has no 'description' (one line saying what the memory is).")
    fallback = datetime.fromtimestamp(mtime if mtime is not None else path.stat().st_mtime, timezone.utc)
    updated = _as_time(data["updated"], "updated") if data.get("updated") else fallback.replace(microsecond=0)
    created = _as_time(data["created"], "created") if data.get("created") else updated
    superseded = data.get("superseded_by")
    return Memory(
        slug=path.stem,
        type=kind,
        description=" ".join(description.split()),
        body=body.rstrip("\n"),
        created=created,
        updated=updated,
        superseded_by=str(superseded).strip() if superseded else None,
        path=path,
    )


def read_memory(path: Path) -> Memory:
    try:
        stat = path.stat()
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise MemoryFileError("it is not UTF-8 text.") from None
    return parse_memory(text, path, stat.st_mtime)


def validate_slug(slug: Any) -> str:
    if not isinstance(slug, str) or not SLUG_RE.match(slug.strip()) or len(slug.strip()) > MAX_SLUG:
        raise MemoryInputError(
            f"slug {slug!r} is not valid: use 1-{MAX_SLUG} lowercase letters, digits and single hyphens, "
            "e.g. 'planck-2018-cosmology'."
        )
    return slug.strip()


def validate_fields(kind: Any, description: Any, body: Any) -> tuple[str, str, str]:
    kind = str(kind or "").strip().lower()
    if kind not in MEMORY_TYPES:
        raise MemoryInputError(f"type {kind!r} is not one of {', '.join(MEMORY_TYPES)}.")
    if not isinstance(description, str) or not description.strip():
        raise MemoryInputError("the description is empty; give one line saying what the memory is.")
    description = " ".join(description.split())
    if len(description) > MAX_DESCRIPTION:
        raise MemoryInputError(f"the description has {len(description)} characters; keep it to one line of at most {MAX_DESCRIPTION}.")
    if not isinstance(body, str) or not body.strip():
        raise MemoryInputError("the content is empty; write what should be remembered.")
    return kind, description, body.strip("\n")


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
    ) -> None:
        self.root = root
        self.clock = clock
        self.warn = warn or (lambda text: None)
        # Called after every change; by default the index is rebuilt from every file. The memory
        # service passes its catalog's refresh instead, which re-reads only the changed files.
        self.after_change = after_change or self.refresh_index

    def path_of(self, slug: str) -> Path:
        return self.root / f"{slug}.md"

    def memory_files(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        return sorted(p for p in self.root.glob("*.md") if p.name != INDEX_NAME and not p.name.startswith("."))

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
    def save(self, slug: str, kind: str, description: str, body: str, replaces: str | None = None) -> SaveResult:
        """Create or update a memory; an update keeps the old text as the next `<slug>_vN.md`."""
        slug = validate_slug(slug)
        kind, description, body = validate_fields(kind, description, body)
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
            atomic_write(path, new.to_text())
        replaced = None
        if retired is not None:
            replaced = replace(retired, superseded_by=slug)
            atomic_write(retired.path or self.path_of(retired.slug), replaced.to_text())
        self.after_change()
        return SaveResult("updated" if old is not None or archived else "created", new, archived, replaced)

    def _retiring(self, slug: str, replaces: str | None) -> Memory | None:
        if not replaces:
            return None
        replaces = validate_slug(replaces)
        if replaces == slug:
            raise MemoryInputError("'replaces' names the memory being saved; leave it out to update it in place.")
        retired = self.get(replaces)
        if retired is None:
            raise MemoryInputError(f"there is no memory '{replaces}' to replace.")
        return retired

    def archive_version(self, old: Memory) -> Path:
        """Keep `old` as the next free `<slug>_vN.md`, marked as updated by `<slug>`."""
        number = 1 + max((int(m.group("n")) for p in self.root.glob(f"{old.slug}_v*.md")
                          if (m := VERSION_RE.match(p.stem)) and m.group("base") == old.slug), default=0)
        while True:
            target = self.root / f"{old.slug}_v{number}.md"
            try:  # claim the number, so two writers never share a version
                os.close(os.open(target, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                break
            except FileExistsError:
                number += 1
        version = replace(old, slug=target.stem, superseded_by=old.superseded_by or old.slug, path=target)
        atomic_write(target, version.to_text())
        return target

    def _keep_broken(self, path: Path) -> Path:
        """A hand-broken file about to be overwritten goes to archive/ as it is, so no text is lost."""
        target = self._archive_target(path.stem + ".broken")
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, target)
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
        moving = [self.path_of(slug)]
        moving += sorted(p for p in self.root.glob(f"{slug}_v*.md")
                         if (m := VERSION_RE.match(p.stem)) and m.group("base") == slug)
        moved = []
        for path in moving:
            target = self._archive_target(path.stem)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
            moved.append(target)
        self.after_change()
        return moved

    def refresh_index(self) -> None:
        write_index(self.root / INDEX_NAME, self.load_all())


def broken_warning(path: Path, exc: Exception) -> str:
    reason = str(exc) if isinstance(exc, MemoryFileError) else f"it cannot be read ({exc.strerror or exc})."
    return f"memory file {path.parent.name}/{path.name} is skipped: {reason}"
