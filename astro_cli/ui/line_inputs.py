"""What a REPL line brings besides its words: `@FILE` attachments and `!command` (Claude Code's habits).

`@notes.md what does it say?` sends the question with the file's text framed after it
(attachments.py: the library's readers, confined to the workspace, cut at `read.max_chars`).

`!ls data/` runs the command as run_bash would (tools/bash.py `run_shell`: the sandbox, no keys in
its environment, the timeout and the output cut) and shows its output. Typing it is the approval
run_bash would ask for; `permissions.deny` still wins. Nothing goes to the model at once: the
command and its output are framed as `<shell-output>` and sent with the next question of the same
session, so the model sees what the researcher saw.
"""

from __future__ import annotations

import dataclasses
import logging
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.text import Text

from astro_cli.prompt.tags import escape_tags
from astro_cli.security.visible import visible

if TYPE_CHECKING:
    from rich.console import Console

    from astro_cli.agent.loop import AgentSession
    from astro_cli.app import AppContext

log = logging.getLogger(__name__)


class LineInputs:
    def __init__(self, app: AppContext, console: Console) -> None:
        self.app = app
        self.console = console
        self._pending: list[tuple[str, str]] = []  # (session id, framed output) for the next question

    def shell(self, session: AgentSession, command: str) -> None:
        """`!command`: run it, show its output, keep it for the session's next question."""
        from astro_cli.tools.bash import run_shell

        if not command:
            self.console.print(Text("give a command after !, e.g. !ls data/", style="yellow"))
            return
        tool = self.app.tools.get("run_bash")
        if tool is None:
            self.console.print(Text("run_bash is not available, so ! commands are not either", style="yellow"))
            return
        typed = dataclasses.replace(session.permissions, asker=lambda tool, arguments: "yes")
        decision = typed.check(tool, {"command": command})
        if not decision.allowed:
            self.console.print(Text(visible(decision.reason), style="yellow"))
            return
        cancel = threading.Event()
        try:
            with _cancel_on_ctrl_c(cancel):
                result = run_shell(self.app, command, cancel, lambda text: self.console.print(
                    Text(visible(text), style="yellow")))
        except OSError as exc:  # bash or the sandbox could not start: one sentence, the REPL goes on
            log.debug("!%s could not run", command, exc_info=True)
            self.console.print(Text(f"the command could not run: {visible(str(exc))}", style="red"))
            return
        self.console.print(Text(visible(result.content, tabs=True)))
        name = escape_tags(command).replace('"', "'")
        self._pending.append((session.session_id, f'The researcher ran a command in the workspace:\n'
                              f'<shell-output command="{name}">\n{escape_tags(result.content)}\n</shell-output>'))

    def prepare(self, session: AgentSession, text: str, typed: bool) -> str | None:
        """The message for the model: earlier `!` outputs, the text, and the files it mentions with
        `@` (only in what the person typed, not in a skill's body). None: a mention could not be
        read, it is said, and nothing is sent."""
        from astro_cli.attachments import mentions, with_attachments

        if typed:
            attached, problems = mentions(self.app, text)
            for problem in problems:
                self.console.print(Text(visible(problem) + " Nothing was sent.", style="yellow"))
            if problems:
                return None
            for attachment in attached:
                self.console.print(Text(visible(attachment.summary()), style="dim"))
            text = with_attachments(text, attached)
        mine = [framed for sid, framed in self._pending if sid == session.session_id]
        self._pending = [(sid, framed) for sid, framed in self._pending if sid != session.session_id]
        return "\n\n".join([*mine, text])


@contextmanager
def _cancel_on_ctrl_c(cancel: threading.Event) -> Iterator[None]:
    """Ctrl-C stops the command (run_command ends its process group), not the REPL."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: cancel.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
