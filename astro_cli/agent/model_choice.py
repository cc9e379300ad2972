"""Which model astro will use, and why: the one place that decides it.

`config show`, `prompt show`, the `{{model}}` prompt variable and every session ask
`model_choice(app)`, so what they report is what `astro run` sends. The order: config `model`
(command line > ASTRO_MODEL > project config > user config), else a default model of the first
provider below that has a key (in the environment, or in ASTRO_HOME/keys.yaml).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from astro_cli.keystore import Credential, KeyStore, KeyStoreError, credential, provider_of

if TYPE_CHECKING:
    from astro_cli.config import Settings


class KeyOwner(Protocol):
    """What deciding the model reads of the app (the AppContext is one; app.py asks this module)."""

    settings: Settings

    @property
    def keys(self) -> KeyStore: ...

    def warn(self, text: str) -> None: ...

log = logging.getLogger(__name__)

# Provider and the model astro picks when only that provider's key is present, in this order.
DEFAULT_MODELS = [
    ("anthropic", "anthropic/claude-sonnet-4-5"),
    ("openai", "openai/gpt-4.1"),
    ("gemini", "gemini/gemini-2.5-pro"),
    ("openrouter", "openrouter/anthropic/claude-sonnet-4.5"),
    ("mistral", "mistral/mistral-large-latest"),
    ("deepseek", "deepseek/deepseek-chat"),
]

NO_MODEL = (
    "No model is configured and no provider key was found: set ANTHROPIC_API_KEY, OPENAI_API_KEY or "
    "GEMINI_API_KEY (or `astro keys set PROVIDER`), or choose a model with --model / ASTRO_MODEL / config "
    "'model' (with ASTRO_API_KEY or --api-base for a local server). Running `astro` in a terminal walks "
    "you through it."
)


@dataclass(frozen=True)
class ModelChoice:
    model: str
    origin: str  # "env ASTRO_MODEL", "/home/me/.config/astro/config.yaml", "picked from OPENAI_API_KEY", ...


def _picked_from(found: Credential) -> str:
    if found.from_store:
        return f"picked from the {found.provider} key in keys.yaml"
    return "picked from " + found.source.removeprefix("env ")


def choose_model(settings: Settings, env: Mapping[str, str], store: KeyStore | None) -> ModelChoice | None:
    """The model that will be used and where it came from; None when nothing says which."""
    model = settings.typed["model"]
    if model:
        from astro_cli.agent.model_aliases import resolve

        full = resolve(model)  # `-m sonnet`: the alias's current model
        return ModelChoice(full, settings.source("model") + (f", alias {model}" if full != model else ""))
    for provider, default in DEFAULT_MODELS:
        found = credential(provider, env, store)
        if found is not None:
            return ModelChoice(default, _picked_from(found))
    return None


def key_store(app: KeyOwner) -> KeyStore | None:
    """The user's keys.yaml (the app's one reader of it); a broken one is a warning (environment keys
    still work), not a stop."""
    store = app.keys
    try:
        store.load()
    except KeyStoreError as exc:
        app.warn(f"{exc} Keys in it are ignored.")
        return None
    if store.too_open():
        app.warn(f"{store.path} can be read by other users; run `chmod 600 {store.path}`.")
    return store


def model_choice(app: KeyOwner, env: Mapping[str, str] | None = None) -> ModelChoice | None:
    return choose_model(app.settings, os.environ if env is None else env, key_store(app))


def credentials_for(env: Mapping[str, str], store: KeyStore | None) -> Callable[[str], Credential | None]:
    """model -> where its key comes from (None: the model needs no key, or none is set)."""
    snapshot = dict(env)

    def lookup(model: str) -> Credential | None:
        provider = provider_of(model)
        if not provider:
            return None
        try:
            return credential(provider, snapshot, store)
        except KeyStoreError as exc:  # keys.yaml broken since start-up: the environment alone
            log.debug("keys.yaml is not used for %s: %s", model, exc)
            return credential(provider, snapshot, None)

    return lookup


