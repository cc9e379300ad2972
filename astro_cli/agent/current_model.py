"""The model a session sends its requests to, and where that model's key comes from: one owner.

`open_session` makes it once from the configuration (`resolve_model`, which asks
`model_choice`); `/model` calls `switch`; everything else reads it: the LLM adapter at each
request, `{{model}}` and the environment message, `/config`, the sessions row (written by the
session when it switches: `AgentSession.switch_model`), compaction's token counter and the
delegating tools (through the session's one LLM, whose `config` is this object's). Nobody keeps a
copy that would need syncing.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astro_cli.agent.provider import LLMConfig
    from astro_cli.agent.tokens import TokenCounter
    from astro_cli.config import Settings
    from astro_cli.keystore import Credential


class CurrentModel:
    """A session's model (its `LLMConfig`: endpoint, key lookup, local tuning) and the origin of the choice.

    With `settings`, a switch re-resolves what depends on the model (temperature, text tool calls,
    first-token wait: agent/local_models.py); without them it changes the name alone.
    """

    def __init__(self, config: LLMConfig, origin: str = "", settings: Settings | None = None) -> None:
        self._config = config
        self.origin = origin
        self.switched = False  # True once /model chose it (/clear keeps such a model)
        self._settings = settings
        self._counter: TokenCounter | None = None
        self._lock = threading.Lock()

    @property
    def config(self) -> LLMConfig:
        return self._config

    @property
    def name(self) -> str:
        return self._config.model

    def credential(self, model: str | None = None) -> Credential | None:
        """Where `model`'s (default: this model's) key comes from, read when asked: keys.yaml is
        read again only when it changed on disk (keystore.KeyStore)."""
        found: Credential | None = self._config.credential(model)
        return found

    def switch(self, name: str, origin: str) -> None:
        """Send the next requests to `name`; what depends on the model is resolved anew."""
        from dataclasses import replace

        if self._settings is not None:
            from astro_cli.agent.local_models import with_model

            config = with_model(self._config, name, self._settings)
        else:
            config = replace(self._config, model=name)
        with self._lock:
            self._config, self.origin, self._counter, self.switched = config, origin, None, True

    def counter(self) -> TokenCounter:
        """The token counter of this model (litellm's tokenizer for it), made on first use after each switch."""
        with self._lock:
            if self._counter is None or self._counter.model != self._config.model:
                from astro_cli.agent.tokens import TokenCounter

                self._counter = TokenCounter(self._config.model, load=True)
            return self._counter
