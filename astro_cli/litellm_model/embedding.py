"""Embeddings through litellm (the adapter's other door): one batch of texts to vectors.

litellm is imported here, lazily, only when a remote embedding model is configured; local models
(research/search/local_embed.py) never come here. Errors are litellm's provider-specific types; the
caller turns them into one sentence.
"""

from __future__ import annotations

from typing import Any


def embed_batch(model: str, texts: list[str], api_base: str | None, timeout: float | None) -> list[list[float]]:
    """The vectors of `texts`, in their order."""
    from astro_cli.litellm_model.loader import load_litellm

    response = load_litellm().embedding(model=model, input=texts, api_base=api_base or None, timeout=timeout)
    data = sorted(response.data, key=lambda item: _get(item, "index"))
    return [[float(x) for x in _get(item, "embedding")] for item in data]


def _get(item: Any, key: str) -> Any:
    return item[key] if isinstance(item, dict) else getattr(item, key)
