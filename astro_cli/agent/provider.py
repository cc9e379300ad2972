"""The provider side of a model call: how to reach it (LLMConfig), its errors as astro's own
(ProviderError, MissingCredentials), and what a failure means, in one sentence a researcher can act on.

Nothing here reads litellm's API: the questions the adapter asks litellm (is the key there, may this
be retried) are in litellm_model/provider_checks.py.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass
class LLMConfig:
    model: str
    api_base: str | None = None
    api_key: str | None = None
    num_retries: int = 3
    retry_backoff: float = 1.0
    timeout: float = 120.0
    # model -> keystore.Credential | None: where a model's key comes from (environment or keys.yaml).
    credentials: Callable[[str], Any] | None = None
    retry_max_wait: float = 60.0  # longest wait a provider's retry-after may ask for
    max_continuations: int = 3  # requests to finish a reply cut at the output token limit
    # Local models (agent/local_models.py): tool calls written as text, temperature, first-token wait.
    text_tool_calls: bool = False
    temperature: float | None = None
    first_token_timeout: float | None = None
    max_tokens: int | None = None  # output tokens per reply; None: the provider's default
    # What a local OpenAI-compatible server reports (GET /v1/models), asked once when the session
    # starts: its context window picks the small profile under 32k tokens (agent/profiles.py).
    context_window: int | None = None
    server_kind: str | None = None  # "llama.cpp", "vLLM", ...: what the local server said it is

    @property
    def writing_timeout(self) -> float:
        """Seconds a reply may stream after its first token: `timeout`; for a local model whose
        replies `max_tokens` bounds, as long as its first token may take, since a busy CPU writes
        a token or two a second (issue 32: 512 tokens at load 10 outlast 120 s)."""
        if self.first_token_timeout and self.max_tokens:
            return max(self.timeout, self.first_token_timeout)
        return self.timeout

    def credential(self, model: str | None = None) -> Any:
        return self.credentials(model or self.model) if self.credentials is not None else None


class ProviderError(Exception):
    """The model provider failed (after retries, or with an error retrying cannot fix)."""


class MissingCredentials(ProviderError):
    """The model's provider needs a key that is not set: a configuration error, not a provider failure."""


_CLASS_PREFIX = re.compile(r"^(?:litellm\.)?\w+(?:Error|Exception)(?::| -)\s+")


def connection_failure(exc: BaseException) -> tuple[str, str] | None:
    """(URL, reason) when the request never reached a server: refused, unknown host, unreachable."""
    import socket

    import httpx

    seen: set[int] = set()
    url, reason = "", ""
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, httpx.ConnectError) and not url:
            try:
                url = str(current.request.url)
            except RuntimeError:
                url = "?"
            reason = reason or "the connection failed"
        if isinstance(current, ConnectionRefusedError):
            reason = "connection refused"
        elif isinstance(current, socket.gaierror):
            reason = "the host name is unknown"
        current = current.__cause__ or current.__context__
    return (url, reason) if url else None


def _address(url: str, config: LLMConfig | None) -> str:
    if config is not None and config.api_base:
        return config.api_base
    import httpx

    try:
        parsed = httpx.URL(url)
    except Exception:  # noqa: BLE001 - an unparsable URL is shown as it is
        log.debug("an api_base that does not parse as a URL: %r", url, exc_info=True)
        return url
    port = f":{parsed.port}" if parsed.port else ""
    return f"{parsed.scheme}://{parsed.host}{port}"


def _key_source(config: LLMConfig, model: str) -> str:
    from astro_cli.keystore import key_hint

    if config.api_key:
        return "ASTRO_API_KEY"
    found = config.credential(model)
    if found is not None and found.from_store:
        return f"the {found.provider} key in keys.yaml (`astro keys set {found.provider}` replaces it)"
    if found is not None:
        source: str = found.source
        return source.removeprefix("env ")
    return key_hint(model)


def describe_error(exc: Exception, config: LLMConfig | None = None, model: str | None = None) -> str:
    """One sentence about a provider error, without the stack, the request body or repeated class names."""
    model = model or (config.model if config is not None else "")
    failure = connection_failure(exc)
    if failure is not None:
        url, reason = failure
        hint = "is Ollama running (`ollama serve`)?" if model.startswith(("ollama", "ollama_chat")) else (
            "is the server running, and is --api-base / ASTRO_API_BASE right?" if config is not None and config.api_base
            else "check the network connection."
        )
        return f"could not connect to {_address(url, config)} ({reason}); {hint}"
    status = getattr(exc, "status_code", None)
    message = str(getattr(exc, "message", "") or exc).strip().splitlines()[0] if str(exc).strip() else ""
    while True:  # "litellm.InternalServerError: InternalServerError: OpenAIException - ..." -> the text
        shorter = _CLASS_PREFIX.sub("", message, count=1)
        if shorter == message:
            break
        message = shorter
    if len(message) > 300:
        message = message[:300] + "..."
    if status == 401 and config is not None:
        said = f": {message.rstrip('.')}" if message else ""
        return f"the provider refused the key for {model} (HTTP 401{said}); check {_key_source(config, model)}."
    name = type(exc).__name__
    prefix = f"{name} (HTTP {status})" if status else name
    return f"{prefix}: {message}" if message else prefix
