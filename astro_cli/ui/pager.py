"""The pager for long listings (`astro config show`, the trust prompt): colour only where it renders.

rich's pager is pydoc's, which runs `less` without `-R` when $PAGER and $LESS are unset, so colours
show as raw `ESC[36m`. Here, as git does, `less` gets `LESS=FRX` when $LESS is unset (colours
rendered, no pager for a listing that fits); any other pager, or a $LESS without R, gets plain text.
"""

from __future__ import annotations

import logging
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.pager import Pager

if TYPE_CHECKING:
    from rich.console import Console

log = logging.getLogger(__name__)
LESS_DEFAULT = "FRX"  # git's: quit when it fits, raw colour codes rendered, no screen clearing
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def pager_command(env: Mapping[str, str]) -> tuple[str, dict[str, str], bool] | None:
    """The pager to run, its environment, and whether it renders colour; None when there is none."""
    command = env.get("MANPAGER") or env.get("PAGER") or ("less" if shutil.which("less") else "")
    if not command.strip():
        return None
    child_env = dict(env)
    try:
        program = os.path.basename(shlex.split(command)[0])
    except (ValueError, IndexError):
        return command, child_env, False
    if program != "less":
        return command, child_env, False
    if "LESS" not in child_env:
        child_env["LESS"] = LESS_DEFAULT
    flags = child_env["LESS"] + " " + command
    return command, child_env, "R" in flags or "-r" in flags or "--RAW-CONTROL-CHARS" in flags


class ColourSafePager(Pager):
    """rich's Pager interface over `pager_command`."""

    def show(self, content: str) -> None:
        found = pager_command(os.environ)
        if found is None:
            sys.stdout.write(_ANSI.sub("", content))
            return
        command, env, colour = found
        text = content if colour else _ANSI.sub("", content)
        try:
            proc = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE, env=env,  # noqa: S602 - the user's $PAGER
                                    text=True, errors="backslashreplace")
        except OSError as exc:
            log.debug("pager %r did not start: %s", command, exc)
            sys.stdout.write(_ANSI.sub("", content))
            return
        try:
            assert proc.stdin is not None
            with proc.stdin as pipe:
                pipe.write(text)
        except (OSError, KeyboardInterrupt):
            pass  # the reader quit the pager early
        while True:
            try:
                proc.wait()
                break
            except KeyboardInterrupt:
                continue  # Ctrl-C belongs to the pager while it holds the terminal


@contextmanager
def paged(console: Console) -> Iterator[None]:
    """`with paged(console): console.print(...)`: what is printed goes through the pager, in colour when it renders."""
    with console.pager(pager=ColourSafePager(), styles=True):
        yield
