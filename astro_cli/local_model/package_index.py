"""A Python package index (PyPI or a mirror) read as pip reads it: the project's simple page, in
PEP 691's JSON when the index speaks it, else PEP 503's HTML. Only files whose link carries a sha256
are used, and every download is checked against it before it is kept.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

from astro_cli.security.writer import Place, open_binary

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
ACCEPT = f"{JSON_TYPE}, text/html;q=0.1"
CHUNK = 1 << 20
_LINK = re.compile(r'<a\s[^>]*href="([^"]+)"[^>]*>([^<]+)</a>', re.IGNORECASE)
Progress = Callable[[int], None]  # bytes received so far of the current file


class PackageIndexError(OSError):
    """The index cannot give what is wanted, or a file does not match what the index said."""


@dataclass(frozen=True)
class IndexFile:
    filename: str
    url: str
    sha256: str


def normalize(project: str) -> str:
    """PEP 503's normalised project name (the folder of its simple page)."""
    return re.sub(r"[-_.]+", "-", project).lower()


def project_files(client: Any, index: str, project: str) -> list[IndexFile]:
    """The files the index lists for `project` that carry a sha256 (`client`: an httpx.Client)."""
    page = urljoin(index.rstrip("/") + "/", normalize(project) + "/")
    try:
        response = client.get(page, headers={"Accept": ACCEPT}, follow_redirects=True)
    except Exception as exc:  # noqa: BLE001 - httpx's errors: the sentence names the index
        raise PackageIndexError(f"the package index at {_site(index)} cannot be reached ({type(exc).__name__}).") from None
    if response.status_code == 404:
        raise PackageIndexError(f"the package index at {_site(index)} has no project {project}.")
    if response.status_code != 200:
        raise PackageIndexError(f"the package index at {_site(index)} answered HTTP {response.status_code} for {project}.")
    base = str(response.url)
    if response.headers.get("content-type", "").startswith(JSON_TYPE):
        return [IndexFile(f["filename"], urljoin(base, f["url"]), f["hashes"]["sha256"])
                for f in response.json().get("files", [])
                if isinstance(f, dict) and f.get("hashes", {}).get("sha256") and not f.get("yanked")]
    found = []
    for href, text in _LINK.findall(response.text):
        url, _, fragment = html.unescape(href).partition("#")
        if fragment.startswith("sha256="):
            found.append(IndexFile(text.strip(), urljoin(base, url), fragment.removeprefix("sha256=")))
    return found


def download(client: Any, file: IndexFile, place: Place, progress: Progress) -> None:
    """`file` into `place`, kept only when its sha256 is the index's (else nothing is left there)."""
    digest = hashlib.sha256()
    received = 0
    with open_binary(place) as out:
        try:
            with client.stream("GET", file.url, follow_redirects=True) as response:
                if response.status_code != 200:
                    raise PackageIndexError(f"{file.filename}: the index answered HTTP {response.status_code}.")
                for chunk in response.iter_bytes(CHUNK):
                    out.write(chunk)
                    digest.update(chunk)
                    received += len(chunk)
                    progress(received)
        except PackageIndexError:
            raise
        except Exception as exc:  # noqa: BLE001 - a dropped connection: one sentence, the file is not kept
            raise PackageIndexError(f"{file.filename}: the download broke off ({type(exc).__name__}).") from None
        if digest.hexdigest() != file.sha256.lower():
            raise PackageIndexError(f"{file.filename} does not match the sha256 the index gives for it (a corrupt or "
                              "altered download); nothing of it was kept.")


def _site(index: str) -> str:
    parts = urlsplit(index)
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else index
