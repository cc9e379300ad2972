"""llama.cpp's server for the model astro downloaded (config `local_model_path`), started as astro's
child (security/children.py: isolated, from `/`) on the port of config `api_base`, and stopped when
astro closes. A server already answering there (another astro in another terminal) is used as it is.
"""

from __future__ import annotations

import logging
import os
import select
import socket
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from astro_cli.security.children import python_child
from astro_cli.user_error import UserError

if TYPE_CHECKING:
    from astro_cli.app import AppContext

log = logging.getLogger(__name__)
START_TIMEOUT = 300.0  # loading 1.1 GB from a slow disk on a busy machine


class ServerError(UserError):
    """The server did not start; the message is one sentence for the person."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def answers(api_base: str) -> bool:
    """Does an OpenAI-compatible server answer `GET {api_base}/models` already?"""
    import httpx

    try:
        return httpx.get(api_base.rstrip("/") + "/models", timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False


def start(runtime: Path, model: Path, port: int, threads: int, context: int, log_path: Path) -> subprocess.Popen[str]:
    """The server child, once it listens (its stderr goes to `log_path`)."""
    from astro_cli.security.writer import Place, open_append

    command = python_child("astro_cli.local_model.serve",
                           [str(runtime), str(model), str(context), str(threads), str(port)], os.environ)
    with open_append(Place.beside(log_path)) as errors:
        process = subprocess.Popen(command.argv, cwd=command.cwd, env=command.env, stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=errors, text=True)
    assert process.stdout is not None
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline and process.poll() is None:
        readable, _, _ = select.select([process.stdout], [], [], 0.5)
        if readable:
            line = process.stdout.readline()
            if line.startswith("http"):
                log.debug("local model server %s listening at %s", model.name, line.strip())
                return process
            break
    stop(process)
    raise ServerError(f"llama.cpp's server did not start for {model.name}; its messages are in {log_path}.")


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        if process.stdin is not None:
            process.stdin.close()  # the child ends when its stdin closes
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def ensure_served(app: AppContext) -> None:
    """When config `local_model_path` names the model astro runs itself, have its server answer at
    `api_base` for this process's life (started here unless something answers there already)."""
    settings = app.settings.typed
    path, api_base = settings["local_model_path"], settings["api_base"]
    if not path or not api_base:
        return
    parts = urlsplit(api_base)
    if parts.hostname not in ("127.0.0.1", "localhost") or not parts.port or answers(api_base):
        return
    model = Path(path)
    runtime = Path(settings["local_model_runtime"] or "")
    if not model.is_file() or not runtime.is_dir():
        raise ServerError(f"the local model {model} (config local_model_path) or its runtime is missing; run "
                          "`astro` again after removing local_model_path from your config to download it anew.")
    process = start(runtime, model, parts.port, int(settings["local_model_threads"]),
                    int(settings["local_model_context"]), model.parent.parent / "server.log")
    app.on_close(lambda: stop(process))
