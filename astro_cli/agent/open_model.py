"""Where a caller gets the real Model (agent/model.py): the litellm adapter, imported only here and only
when asked, so that a path that calls no model never imports litellm. A module apart from the port,
which the adapter itself imports.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from astro_cli.agent.current_model import CurrentModel
    from astro_cli.agent.model import Model
    from astro_cli.agent.provider import LLMConfig


def open_model(config: LLMConfig | CurrentModel) -> Model:
    """The real model for `config`: the litellm adapter (imported here, not before)."""
    from astro_cli.litellm_model.adapter import LLM

    return LLM(config)


def warm_up_in_background() -> threading.Thread:
    """Import the adapter's library in a thread while the user types (the REPL, MCP's start)."""
    from astro_cli.litellm_model.loader import warm_up_in_background as warm

    return warm()


def load_adapter() -> None:
    """Import the adapter's library now (a model path that counts tokens with the model's own counter)."""
    from astro_cli.litellm_model.loader import load_litellm

    load_litellm()
