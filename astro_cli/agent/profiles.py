"""Prompt profiles: what a model is offered. `default` is astro's full prompt, unchanged; `small`
is for small local models, whose prompt processing on a CPU costs minutes per few thousand tokens
and which pick the wrong tool among twenty: the research core tools only, each described by its
first sentence (issue 32).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING

from astro_cli.config import ConfigError

if TYPE_CHECKING:
    from astro_cli.tools.base import Tool

log = logging.getLogger(__name__)

PROFILES = ("auto", "default", "small")
SMALL = "small"
DEFAULT = "default"
SMALL_CONTEXT = 32_768  # a server whose context window is under 32k tokens serves a small model


def resolve_profile(setting: str, model: str | None, context_window: int | None = None) -> str:
    """`default` or `small`; `auto` (the default setting) picks `small` for Ollama models and for
    a local server that reports a context window under 32k tokens (local_servers.py)."""
    if setting not in PROFILES:
        raise ConfigError(f"profile must be one of {', '.join(PROFILES)} (got {setting!r}).")
    if setting != "auto":
        return setting
    if (model or "").lower().startswith(("ollama/", "ollama_chat/")):
        return SMALL
    return SMALL if context_window is not None and context_window < SMALL_CONTEXT else DEFAULT


def profile_tools(tools: Iterable[Tool], profile: str, small_tools: Iterable[str]) -> list[Tool]:
    """The tools a profile offers, in the given order: all as they are for `default`; for `small`
    those named in `small_tools`, each with its description cut to the first sentence."""
    tools = list(tools)
    if profile != SMALL:
        return tools
    wanted = set(small_tools)
    return [_short(tool) for tool in tools if tool.name in wanted]


def _short(tool: Tool) -> Tool:
    try:
        return dataclasses.replace(tool, description=tool.summary)
    except (TypeError, ValueError):  # a tool class with fields of its own: offered as it is
        log.debug("tool %s keeps its full description in the small profile", tool.name, exc_info=True)
        return tool


def profile_reason(setting: str, source: str, model: str | None, context_window: int | None) -> str:
    """Why `resolve_profile` gave what it gave, in a few words (`/status`)."""
    if setting != "auto":
        return f"profile {setting} set by {source}"
    if (model or "").lower().startswith(("ollama/", "ollama_chat/")):
        return "auto: an Ollama model"
    if context_window is None:
        return "auto: no local server reported a context window"
    under = "under" if context_window < SMALL_CONTEXT else "not under"
    return f"auto: the server reports a context window of {context_window:,} tokens, {under} {SMALL_CONTEXT:,}"
