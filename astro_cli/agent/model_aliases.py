"""Short model names (`-m sonnet`, `/model gpt-4.1`), as `claude --model sonnet` and `llm -m 4o` take.

Each alias is a provider's current model, written as the litellm string astro sends; `astro models`
lists them. A name with a `/` is a litellm string already and is never an alias. Kept in one table
here, so a new model generation is one line.
"""

from __future__ import annotations

# alias -> litellm model string (the provider's current names)
ALIASES: dict[str, str] = {
    "sonnet": "anthropic/claude-sonnet-4-5",
    "opus": "anthropic/claude-opus-4-5",
    "haiku": "anthropic/claude-haiku-4-5",
    "claude-sonnet-4-5": "anthropic/claude-sonnet-4-5",
    "claude-opus-4-5": "anthropic/claude-opus-4-5",
    "claude-haiku-4-5": "anthropic/claude-haiku-4-5",
    "gpt-5": "openai/gpt-5",
    "gpt-5-mini": "openai/gpt-5-mini",
    "gpt-4.1": "openai/gpt-4.1",
    "gpt-4.1-mini": "openai/gpt-4.1-mini",
    "gpt-4o": "openai/gpt-4o",
    "4o": "openai/gpt-4o",
    "o3": "openai/o3",
    "gemini-pro": "gemini/gemini-2.5-pro",
    "gemini-flash": "gemini/gemini-2.5-flash",
    "deepseek": "deepseek/deepseek-chat",
    "mistral-large": "mistral/mistral-large-latest",
}


def resolve(name: str) -> str:
    """The litellm string for `name`: its alias's model, else `name` unchanged (case of aliases ignored)."""
    if "/" in name:
        return name
    return ALIASES.get(name.strip().lower(), name)
