"""What changes for a model served on the researcher's own machine or network (Ollama, llama.cpp's
server, vLLM): tool calls read from the text, temperature 0, a long wait for the first token.

A model is local when it is an Ollama model or its api_base is a loopback or private address
(an IP literal or `localhost`; no name is looked up). Cloud models get none of this unless the
user asks for it in the settings.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from astro_cli.config import ConfigError

if TYPE_CHECKING:
    from pathlib import Path

    from astro_cli.agent.provider import LLMConfig
    from astro_cli.config import Settings
    from astro_cli.local_servers import ServerFacts

LOCAL_FIRST_TOKEN_TIMEOUT = 600.0  # a cold prefill of ~5k tokens on 2 CPU cores takes minutes
# A small model's useful reply (a call, an answer with its source) is far shorter; one that goes on
# is usually running away, repeating itself until `timeout` (recorded: 760+ tokens, issue 32).
SMALL_MAX_TOKENS = 512
SWITCH_VALUES = ("auto", "on", "off")


def is_local_endpoint(model: str, api_base: str | None) -> bool:
    """True for Ollama models and for servers at a loopback or private address."""
    if _is_ollama(model):
        return True
    if not api_base:
        return False
    try:
        host = urlsplit(api_base if "//" in api_base else "//" + api_base).hostname or ""
    except ValueError:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


@dataclass(frozen=True)
class LocalTuning:
    """The request settings that depend on whether the model is local."""

    text_tool_calls: bool
    temperature: float | None
    first_token_timeout: float | None  # None: no wait of its own (the request timeout applies)
    max_tokens: int | None = None  # None: the provider's default
    continue_cut: bool = True  # False: a reply cut at the small profile's limit is not continued (a runaway)


def local_tuning(model: str, api_base: str | None, switch: str, temperature: float | None,
                 first_token_timeout: float | None, max_tokens: int | None = None,
                 small: bool = False) -> LocalTuning:
    """Resolve the settings: `switch` is local_models.text_tool_calls (auto, on, off); `small`: the
    session has the small profile (agent/profiles.py). What the user set wins over every default."""
    if switch not in SWITCH_VALUES:
        raise ConfigError(f"local_models.text_tool_calls must be one of {', '.join(SWITCH_VALUES)} (got {switch!r}).")
    local = is_local_endpoint(model, api_base)
    return LocalTuning(
        text_tool_calls=switch == "on" or (switch == "auto" and local),
        temperature=temperature if temperature is not None else (0.0 if local else None),
        first_token_timeout=first_token_timeout if first_token_timeout is not None else (
            LOCAL_FIRST_TOKEN_TIMEOUT if local else None),
        max_tokens=max_tokens if max_tokens is not None else (SMALL_MAX_TOKENS if small else None),
        continue_cut=max_tokens is not None or not small,
    )


def _is_ollama(model: str) -> bool:
    return model.lower().startswith(("ollama/", "ollama_chat/"))


def server_facts(model: str, api_base: str | None, cache_file: Path | None) -> ServerFacts:
    """What a local OpenAI-compatible server says of itself (GET /v1/models): its context window,
    which picks the small profile under 32k tokens, and its kind (llama.cpp reports prompt
    progress). Asked only of a local server: never of a cloud API, nor of Ollama (small by name)."""
    from astro_cli.local_servers import ServerFacts, ask_server

    if not api_base or _is_ollama(model) or not is_local_endpoint(model, api_base):
        return ServerFacts()
    return ask_server(api_base, model, cache_file)


def with_model(config: LLMConfig, model: str, settings: Settings) -> LLMConfig:
    """`config` for another model (/model, a subagent's own model), its local tuning resolved anew:
    switching from an Ollama model to a cloud one leaves neither temperature 0 nor text calls behind."""
    tuning = tuning_of(model, config.api_base, settings, config.context_window)
    return dataclasses.replace(config, model=model, text_tool_calls=tuning.text_tool_calls,
                               temperature=tuning.temperature, first_token_timeout=tuning.first_token_timeout,
                               max_tokens=tuning.max_tokens, max_continuations=max_continuations(tuning, settings))


def tuning_of(model: str, api_base: str | None, settings: Settings, context_window: int | None) -> LocalTuning:
    """The tuning the settings give `model` at `api_base`, whose server reported `context_window`."""
    from astro_cli.agent.profiles import SMALL, resolve_profile

    small = resolve_profile(settings.typed["profile"], model, context_window) == SMALL
    return local_tuning(model, api_base, settings.typed["local_models.text_tool_calls"], settings.typed["temperature"],
                        settings.typed["first_token_timeout"], settings.typed["max_tokens"], small=small)


def max_continuations(tuning: LocalTuning, settings: Settings) -> int:
    """Requests to finish a reply cut at the token limit: none for a reply cut at the small
    profile's own limit (a small model that long is running away), `max_continuations` otherwise."""
    return settings.typed["max_continuations"] if tuning.continue_cut else 0
