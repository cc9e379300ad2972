"""Counting tokens without importing litellm (4 s) on paths that call no model.

litellm's default counter is tiktoken's cl100k_base, loaded from the tokenizer files litellm
ships; astro uses the same files directly. When litellm is already imported (during a turn), its
own model-aware counter is used. Without tiktoken, a 4-characters-per-token estimate. Each
counter says which method it used, so `astro prompt show` can tell the user.
"""

from __future__ import annotations

import importlib.util
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass
class TokenCounter:
    method: str
    count: Callable[[str], int]


def _litellm_tokenizer_dir() -> Path | None:
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / "litellm_core_utils" / "tokenizers"
    return folder if folder.is_dir() else None


def estimate(text: str) -> int:
    return math.ceil(len(text) / 4)


def get_counter(model: str | None = None) -> TokenCounter:
    litellm = sys.modules.get("litellm")
    if litellm is not None and model:
        return TokenCounter(
            f"litellm.token_counter ({model})", lambda text: int(litellm.token_counter(model=model, text=text))
        )
    folder = _litellm_tokenizer_dir()
    if folder is not None and importlib.util.find_spec("tiktoken") is not None:
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(folder))
        try:
            import tiktoken

            encoding = tiktoken.get_encoding("cl100k_base")
        except Exception:  # noqa: BLE001 - fall back to the estimate below
            encoding = None
        if encoding is not None:
            return TokenCounter(
                "tiktoken cl100k_base (litellm's default tokenizer)",
                lambda text: len(encoding.encode(text, disallowed_special=())),
            )
    return TokenCounter("estimate (4 characters per token)", estimate)
