"""The one file writer: everything astro writes into a workspace or ASTRO_HOME goes through here.

A file is named by a trusted root (the workspace, an allowed path, ASTRO_HOME, a feature's folder)
and the parts below it. The folders down to the file are opened one by one relative to a directory
descriptor with O_NOFOLLOW, so a symbolic link at any level makes the write fail instead of landing
elsewhere; the file is created exclusively under a fresh temporary name in that folder and renamed
into place, so a crash never leaves half a file and a link planted at the final name (or at any
name astro used to write through, such as `.x.partial`) is replaced, never followed.

`replace=False` makes the final step a hard link that fails when the name exists: whether astro may
replace a file someone else made is the caller's decision (a tool asks first, as file_write does),
and this makes that decision race-free. A structure test (tests/structure/test_structure_writer.py) keeps
this module the only place that opens files for writing, renames or copies them.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class LinkRefused(OSError):
    """A folder on the way to the file is a link (or turned into one, or into a file) while astro wrote."""


class NameTaken(FileExistsError):
    """The final name exists and the caller did not allow replacing it."""


@dataclass(frozen=True)
class Place:
    """A file below a trusted root: `root` itself is opened as it is, nothing below it is followed."""

    root: Path
    parts: tuple[str, ...]

    def __post_init__(self) -> None:
        # Every Place, however built (an archive's member names, a tool's path), stays below its root:
        # the folders are opened one name at a time, so a '..' or a '/' inside a name would climb out.
        if not self.parts or any(p in ("", ".", "..") or "/" in p or "\0" in p for p in self.parts):
            raise ValueError(f"{'/'.join(self.parts) or '(nothing)'} does not name a file below {self.root}.")

    @classmethod
    def of(cls, root: Path, path: str | Path) -> Place:
        """`path` (absolute inside `root`, or relative to it) as parts below `root`; no '..' anywhere."""
        candidate = Path(path)
        try:
            relative = candidate.relative_to(root.absolute()) if candidate.is_absolute() else candidate
        except ValueError:
            raise ValueError(f"'{path}' is not below {root}.") from None
        parts = tuple(p for p in relative.parts if p not in ("", "."))
        if not parts or any(p == ".." for p in parts):
            raise ValueError(f"'{path}' does not name a file below {root}.")
        return cls(root, parts)

    @classmethod
    def beside(cls, path: Path) -> Place:
        """A file whose folder is trusted as it is (a path the researcher typed on the command line)."""
        return cls(path.parent, (path.name,))

    @property
    def path(self) -> Path:
        return self.root.joinpath(*self.parts)

    @property
    def name(self) -> str:
        return self.parts[-1]

    def sibling(self, name: str) -> Place:
        return Place(self.root, (*self.parts[:-1], name))


def open_folder_chain(root: Path, parts: Iterable[str], create: bool) -> int:
    """An fd of root/parts..., opening each folder with O_NOFOLLOW (a link anywhere on the way fails)."""
    flags = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW | _CLOEXEC
    if create:
        root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)
    try:
        for part in parts:
            try:
                child = os.open(part, flags, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                child = _open_child(part, flags, fd)
            except OSError as exc:
                raise _refused(part, exc) from None
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_child(part: str, flags: int, fd: int) -> int:
    try:
        return os.open(part, flags, dir_fd=fd)
    except OSError as exc:
        raise _refused(part, exc) from None


def _refused(part: str, exc: OSError) -> OSError:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
        return LinkRefused(exc.errno, f"'{part}' is a link or a file, not a folder; astro writes through no link")
    return exc


@contextlib.contextmanager
def folder(place: Place, create: bool = True) -> Iterator[int]:
    """The open folder that holds `place` (an fd, closed afterwards)."""
    fd = open_folder_chain(place.root, place.parts[:-1], create)
    try:
        yield fd
    finally:
        os.close(fd)


def _existing_mode(folder_fd: int, name: str) -> int | None:
    try:
        existing = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return stat.S_IMODE(existing.st_mode) if stat.S_ISREG(existing.st_mode) else None


def _commit(folder_fd: int, temp: str, name: str, replace: bool) -> None:
    if replace:
        os.replace(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        return
    try:
        os.link(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd, follow_symlinks=False)
    except FileExistsError:
        raise NameTaken(errno.EEXIST, f"'{name}' already exists") from None
    except OSError:  # a filesystem without hard links: claim the name exclusively, then rename over the claim
        try:
            os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600,
                             dir_fd=folder_fd))
        except FileExistsError:
            raise NameTaken(errno.EEXIST, f"'{name}' already exists") from None
        os.replace(temp, name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        return
    os.unlink(temp, dir_fd=folder_fd)


@contextlib.contextmanager
def open_in_folder(folder_fd: int, name: str, replace: bool = True, mode: int | None = None) -> Iterator[BinaryIO]:
    """A binary file object for `name` in the open folder: a fresh temporary file, renamed to `name`
    when the block ends cleanly, removed when it raises. `mode` sets the permissions (else an
    existing file's are kept, else the umask's)."""
    keep = mode if mode is not None else _existing_mode(folder_fd, name)
    if not replace:
        with contextlib.suppress(FileNotFoundError):
            os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
            raise NameTaken(errno.EEXIST, f"'{name}' already exists")
    temp = f".{name[:120]}.{secrets.token_hex(4)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    fd = os.open(temp, flags, 0o600 if mode is not None else 0o666, dir_fd=folder_fd)
    try:
        with os.fdopen(fd, "wb") as handle:
            if keep is not None:
                os.fchmod(handle.fileno(), keep)
            yield handle
        _commit(folder_fd, temp, name, replace)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=folder_fd)
        raise


@contextlib.contextmanager
def open_binary(place: Place, replace: bool = True, mode: int | None = None) -> Iterator[BinaryIO]:
    """Stream a file into `place` (downloads, FITS tables): in place only when the block ends cleanly."""
    with folder(place) as folder_fd, open_in_folder(folder_fd, place.name, replace, mode) as handle:
        yield handle


def write_bytes(place: Place, data: bytes, replace: bool = True, mode: int | None = None) -> Path:
    """Create or replace `place` with `data`, whole or not at all; returns its path."""
    with open_binary(place, replace, mode) as handle:
        handle.write(data)
    return place.path


def write_text(place: Place, text: str, replace: bool = True, mode: int | None = None) -> Path:
    return write_bytes(place, text.encode("utf-8"), replace, mode)


@contextlib.contextmanager
def open_append(place: Place, mode: int = 0o666) -> Iterator[BinaryIO]:
    """Append to `place` (a resumable download's part file, a log), creating it; a link there is refused."""
    with folder(place) as folder_fd:
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | _NOFOLLOW | _CLOEXEC
        try:
            fd = os.open(place.name, flags, mode, dir_fd=folder_fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise LinkRefused(exc.errno, f"'{place.name}' is a link; astro writes through no link") from None
            raise
        with os.fdopen(fd, "ab") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise LinkRefused(errno.EINVAL, f"'{place.name}' is not a regular file")
            yield handle


def rename(source: Place, target: Place) -> Path:
    """Move a file or folder astro wrote (a finished download) to `target`, following no link on the way;
    a link at the target's name is replaced."""
    with folder(source, create=False) as src_fd, folder(target) as dst_fd:
        os.replace(source.name, target.name, src_dir_fd=src_fd, dst_dir_fd=dst_fd)
    return target.path


def copy_into(source: Path, place: Place, replace: bool = True) -> Path:
    """Copy a file astro may read into `place` (a local PDF added to the library)."""
    with source.open("rb") as src, open_binary(place, replace) as out:
        while chunk := src.read(1 << 20):
            out.write(chunk)
    return place.path


def remove(place: Place) -> bool:
    """Delete the file at `place` (a link there is removed, never followed); False when it was absent."""
    try:
        with folder(place, create=False) as folder_fd:
            os.unlink(place.name, dir_fd=folder_fd)
    except FileNotFoundError:
        return False
    return True


def lexists(place: Place) -> bool:
    """Is the name taken (by a file, a folder or a link, dangling or not)?"""
    try:
        with folder(place, create=False) as folder_fd:
            os.stat(place.name, dir_fd=folder_fd, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return True


def write_file(path: Path, data: bytes | str, root: Path | None = None, mode: int | None = None) -> Path:
    """astro's own files (config, memory, trust, keys): below `root` nothing is followed; without a
    root only the folder that holds the file is trusted as it is."""
    place = Place.of(root, path) if root is not None else Place.beside(path)
    return write_bytes(place, data.encode("utf-8") if isinstance(data, str) else data, True, mode)

