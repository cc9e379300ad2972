"""The environment astro sets before litellm reads it: the local cost map (no network when litellm
is imported) and quiet logs. main() applies it at start-up, so every command astro starts sees the
same environment whether litellm was imported in this process, in the warm worker, or not yet.

A module of its own because the thin `astro run` client applies it and must not import llm.py.
"""

from __future__ import annotations

from collections.abc import MutableMapping

LITELLM_ENVIRONMENT = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_LOG": "ERROR"}


def litellm_environment_defaults(env: MutableMapping[str, str]) -> None:
    for name, value in LITELLM_ENVIRONMENT.items():
        env.setdefault(name, value)
