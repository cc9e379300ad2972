"""Finding OpenAI-compatible model servers on this machine (llama.cpp's server, vLLM, LM Studio)
and what their `GET /v1/models` says: the models served and, where the server reports it, the
context window (llama.cpp: `meta.n_ctx`; vLLM: `max_model_len`).

Short timeouts, probes in parallel: the first run and `astro doctor` call this while a person
waits, and a session asks once per process (agent/local_models.py) to choose its profile. A port
where nothing listens answers at once (connection refused); one that accepts and says nothing
costs at most PROBE_TIMEOUT.
"""

from __future__ import annotations

import http.client
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

PROBE_TIMEOUT = 0.5
# The usual ports (config 'local_servers' lists where to look): llama.cpp's llama-server, vLLM's
# `vllm serve`, LM Studio's local server.
_PORT_NAMES = {"8080": "llama.cpp", "8000": "vLLM", "1234": "LM Studio"}
_OWNERS = {"llamacpp": "llama.cpp", "vllm": "vLLM"}
_CONTEXT_KEYS = ("max_model_len", "context_length", "max_context_length", "loaded_context_length")


@dataclass(frozen=True)
class ServedModel:
    id: str
    context: int | None = None  # tokens, when the server says

    @property
    def litellm_model(self) -> str:
        """litellm's route for an OpenAI-compatible server (with api_base set to the server)."""
        return f"openai/{self.id}"


@dataclass(frozen=True)
class LocalServer:
    url: str  # without /v1: http://127.0.0.1:8080
    kind: str  # llama.cpp, vLLM, LM Studio, or "OpenAI-compatible server"
    models: list[ServedModel] = field(default_factory=list)

    @property
    def api_base(self) -> str:
        return self.url + "/v1"

    @staticmethod
    def label(model: ServedModel) -> str:
        """One model in a list under its server's name."""
        return f"{model.id} (context {model.context:,} tokens)" if model.context else model.id


def server_root(url: str) -> str:
    """`http://host:port` from an api_base that may end in /v1 (or /v1/)."""
    url = url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def probe(url: str, timeout: float = PROBE_TIMEOUT) -> LocalServer | None:
    """What the OpenAI-compatible server at `url` serves; None when none answers there."""
    root = server_root(url)
    try:
        listed = _get_json(root + "/v1/models", timeout).get("data")
    except (OSError, ValueError, AttributeError, http.client.HTTPException) as exc:
        log.debug("no OpenAI-compatible server at %s: %s", root, exc)
        return None
    if not isinstance(listed, list):
        return None
    models, owners = [], set()
    for entry in listed:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not entry["id"]:
            continue
        owners.add(str(entry.get("owned_by") or "").lower())
        models.append(ServedModel(entry["id"], _context(entry)))
    kind = next((_OWNERS[o] for o in owners if o in _OWNERS), None)
    kind = kind or _PORT_NAMES.get(root.rsplit(":", 1)[-1], "OpenAI-compatible server")
    return LocalServer(root, kind, models)


def _get_json(url: str, timeout: float) -> Any:
    """GET with the standard library: a local probe needs no client pool, and httpx builds a TLS
    context per client (~50 ms) even for plain HTTP (benchmarks/bench_local_probe.py)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {url}")
    kind = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    connection = kind(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.request("GET", parts.path or "/", headers={"Accept": "application/json"})
        response = connection.getresponse()
        if response.status != 200:
            raise ValueError(f"HTTP {response.status}")
        return json.loads(response.read(2_000_000))
    finally:
        connection.close()


def answers(url: str, timeout: float = PROBE_TIMEOUT) -> bool:
    """Whether a GET of `url` returns JSON with status 200 (Ollama's /api/tags, for `astro doctor`)."""
    try:
        _get_json(url, timeout)
    except (OSError, ValueError, http.client.HTTPException):
        return False
    return True


def _context(entry: dict[str, Any]) -> int | None:
    meta = entry.get("meta")
    for value in [meta.get("n_ctx") if isinstance(meta, dict) else None, *(entry.get(key) for key in _CONTEXT_KEYS)]:
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def find_servers(urls: list[str], timeout: float = PROBE_TIMEOUT) -> list[LocalServer]:
    """The servers among `urls` that answer, probed in parallel, in the order given."""
    urls = [u for u in dict.fromkeys(server_root(u) for u in urls if u)]
    if not urls:
        return []
    with ThreadPoolExecutor(max_workers=len(urls)) as pool:
        found = list(pool.map(lambda u: probe(u, timeout), urls))
    return [server for server in found if server is not None]


@dataclass(frozen=True)
class ServerFacts:
    """What a session keeps of its local server: the context window and what kind of server it is."""

    context: int | None = None
    kind: str | None = None


def ask_server(api_base: str, model: str, cache_file: Path | None, timeout: float = PROBE_TIMEOUT) -> ServerFacts:
    """The context window the server at `api_base` reports for `model` (or its only model), and its kind.

    Asked once per process; the answer is kept in `cache_file` so that a server busy with a long
    prefill (or briefly down) still gives the same profile, and the prompt the same shape."""
    server = probe(api_base, timeout)
    key = server_root(api_base)
    cached = _read_cache(cache_file)
    if server is None:
        entry = cached.get(key) or {}
        context, kind = entry.get("context"), entry.get("kind")
        return ServerFacts(context if isinstance(context, int) else None, kind if isinstance(kind, str) else None)
    wanted = model.split("/", 1)[1] if model.startswith("openai/") else model
    served = next((m for m in server.models if m.id == wanted), None)
    if served is None and len(server.models) == 1:
        served = server.models[0]  # llama.cpp serves one model under whatever name it is asked for
    facts = ServerFacts(served.context if served else None, server.kind)
    entry = cached.get(key) or {}
    if cache_file is not None and (entry.get("context"), entry.get("kind")) != (facts.context, facts.kind):
        cached[key] = {"context": facts.context, "kind": facts.kind, "checked": time.time()}
        _write_cache(cache_file, cached)
    return facts


def _read_cache(path: Path | None) -> dict[str, Any]:
    if path is None or not path.exists():
        return {}
    try:
        value = json.loads(path.read_text())
    except (OSError, ValueError):
        log.debug("ignoring an unreadable %s", path, exc_info=True)
        return {}
    return value if isinstance(value, dict) else {}


def _write_cache(path: Path, value: dict[str, Any]) -> None:
    try:
        from astro_cli.security.writer import write_file

        write_file(path, json.dumps(value, indent=1))
    except OSError:
        log.debug("could not write %s", path, exc_info=True)


def as_dict(server: LocalServer) -> dict[str, Any]:
    return asdict(server)
