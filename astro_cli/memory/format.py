"""The memory file format: YAML frontmatter (slug, description, type, created, updated, superseded_by)
and a Markdown body, parsed leniently where a hand-written file can be understood.

The file name is the slug. A missing `updated` falls back to the file's mtime; what would make a
memory meaningless (no description, an unknown type, unreadable YAML) is a MemoryFileError with one
sentence naming the problem, which callers turn into a warning, never a crash.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import yaml

from astro_cli.frontmatter import FrontmatterError, parse_frontmatter

MEMORY_TYPES = ("preference", "feedback", "project", "reference")
MAX_SLUG = 64
MAX_DESCRIPTION = 200
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
VERSION_RE = re.compile(r"^(?P<base>.+)_v(?P<n>\d+)$")

Clock = Callable[[], datetime]


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


def parse_memory(text: str, path: Path, mtime: float | None = None) -> Memory:
    """A Memory from a file's text; the file name is the slug. MemoryFileError names what is wrong."""
    try:
        data, body = parse_frontmatter(text)
    except FrontmatterError as exc:
        raise MemoryFileError(f"{exc}.") from None
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


_SEPARATORS = re.compile(r"[_\s]+")
_NOT_SLUG = re.compile(r"[^a-z0-9-]")
_PATH_SHAPED = re.compile(r"[/\\]|\.\.")


def normalise_slug(slug: Any) -> str:
    """The slug `slug` can be made into: lower case, `_` and spaces -> `-`, other characters dropped
    (`normalised_flux` -> `normalised-flux`: small models write underscores). A path (`/`, `..`) is
    refused, not flattened: its parts would merge into a name nobody meant."""
    if isinstance(slug, str) and not _PATH_SHAPED.search(slug):
        made = _NOT_SLUG.sub("", _SEPARATORS.sub("-", slug.strip().lower()))
        slug = re.sub(r"-{2,}", "-", made).strip("-") or slug
    return validate_slug(slug)


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


def broken_warning(path: Path, exc: Exception) -> str:
    strerror = exc.strerror if isinstance(exc, OSError) else None
    reason = str(exc) if isinstance(exc, MemoryFileError) else f"it cannot be read ({strerror or exc})."
    return f"memory file {path.parent.name}/{path.name} is skipped: {reason}"
