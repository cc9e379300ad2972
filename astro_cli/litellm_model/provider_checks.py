"""What the adapter asks litellm about a provider: is its key there, may a failure be retried, does
it take `tool_choice`. Moved here from agent/provider.py and agent/first_step.py so that agent/
holds no code that reads litellm's API; the loaded module is passed in (loader.py imports it).
"""

from __future__ import annotations

import logging
from typing import Any

from astro_cli.agent.provider import LLMConfig, MissingCredentials

log = logging.getLogger(__name__)


def check_credentials(litellm: Any, config: LLMConfig) -> None:
    """Fail before the first request, with the variable to set, when the provider's key is missing.

    A configured key or api_base (a local or proxy server, which may need none) skips the check.
    """
    if config.api_key or config.api_base or config.credential() is not None:
        return
    try:
        found = litellm.validate_environment(model=config.model)
    except Exception:  # noqa: BLE001 - an unknown provider: let the request itself say what is wrong
        log.debug("litellm could not check the environment for %s", config.model, exc_info=True)
        return
    missing = found.get("missing_keys") or []
    if found.get("keys_in_environment") or not missing:
        return
    names = " or ".join(missing)
    raise MissingCredentials(
        f"{config.model} needs {names} (or ASTRO_API_KEY) in the environment; set it (or keep it with "
        "`astro keys set PROVIDER`), or choose another model with --model / ASTRO_MODEL."
    )


def retryable(litellm: Any, exc: Exception) -> bool:
    retryable = (
        litellm.RateLimitError,
        litellm.InternalServerError,
        litellm.ServiceUnavailableError,
        litellm.Timeout,
        litellm.APIConnectionError,
    )
    if isinstance(exc, retryable):
        return True
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


def accepts_tool_choice(litellm: Any, model: str) -> bool:
    """Whether litellm sends `tool_choice` to this model's provider (Ollama's /api/generate does not)."""
    try:
        provider = litellm.get_llm_provider(model)[1]
        params = litellm.get_supported_openai_params(model=model, custom_llm_provider=provider) or []
    except Exception:  # noqa: BLE001 - an unknown provider: send nothing rather than fail the request
        log.debug("could not tell whether %s accepts tool_choice", model, exc_info=True)
        return False
    return "tool_choice" in params
