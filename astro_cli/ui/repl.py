"""The interactive REPL (`astro` with no sub-command): read a line, run a slash command or a turn.

Turns run in the main thread, so the permission question is an ordinary prompt and Ctrl-C
reaches the loop as KeyboardInterrupt: the streaming request stops, the partial answer is stored
marked [interrupted], and the session goes on. litellm is imported in a background thread at
start-up so the first question does not wait for it (about 4 s).
"""

from __future__ import annotations

import difflib
import json
import re
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from astro_cli.agent.events import EventBus
from astro_cli.agent.model_activity import ModelActivity
from astro_cli.security.visible import clipped, name_shown, one_line, visible
from astro_cli.slash import SlashContext, slash_commands
from astro_cli.ui.builtin_slash import KEYS_HELP, register_builtins
from astro_cli.ui.line_inputs import LineInputs
from astro_cli.ui.prompt_input import PlainReader, PromptReader, Reader, parse_permission
from astro_cli.ui.render import TurnRenderer
from astro_cli.ui.turnlog import TurnLog
from astro_cli.workspace import found_above

if TYPE_CHECKING:
    from astro_cli.agent.loop import AgentSession
    from astro_cli.agent.model import Model
    from astro_cli.app import AppContext
    from astro_cli.store.db_errors import DatabaseUnusable
    from astro_cli.tools.base import Tool

# `/name args`; a first word with another slash in it (`/data/m31.fits ...`) is a path, sent as text.
SLASH = re.compile(r"^/([A-Za-z][\w:.\-]*)(?:\s+(.*))?$", re.DOTALL)
QUIT_HINT = "press Ctrl-D or /exit to quit"
PERMISSION_QUESTION = "allow? [y]es / [n]o / [a]lways for this session: "


def default_reader(app: AppContext) -> Reader:
    if not sys.stdin.isatty():
        return PlainReader()
    return PromptReader(
        app.home.history_path,
        commands=slash_commands(app).completions,
        session_ids=lambda: [row["id"] for row in app.sessions.list(limit=30)],
    )


class InterruptGuard:
    """SIGINT during a turn stops it through the session's interrupter (agent/interrupt.py): raised
    while the turn's steps run, only the cancel flag while it stores what it has."""

    def __init__(self, session: AgentSession) -> None:
        self.session = session
        self.previous: Any = None

    def _handler(self, signum: int, frame: Any) -> None:
        self.session.interrupter.interrupt(signum)

    def install(self) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, self._handler)

    def __enter__(self) -> InterruptGuard:
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.getsignal(signal.SIGINT)
        self.install()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


APPROVAL_MAX_CHARS = 4000


def approval_lines(arguments: dict[str, Any], key: str | None = None) -> list[Text]:
    """Each argument in full (up to APPROVAL_MAX_CHARS, then an explicit count), control characters
    escaped: what the researcher approves is exactly what will run, and no text can rewrite the line.
    Names are escaped (newlines too) and cut; the tool's key argument (run_bash's command) comes
    last, so it stands next to the question whatever the other arguments hold."""
    lines: list[Text] = []
    order = sorted(arguments, key=lambda name: name == key)
    for name in order:
        value = arguments[name]
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        body = clipped(visible(shown, tabs=True), APPROVAL_MAX_CHARS).replace("\n", "\n    ")
        lines.append(Text.assemble(f"  {name_shown(str(name))}: ", (body, "bold")))
    return lines


class Repl:
    def __init__(self, app: AppContext, console: Console, reader: Reader | None = None) -> None:
        self.app = app
        self.console = console
        self.bus = EventBus()
        self.log = TurnLog()
        self.session: AgentSession | None = None
        self.renderer = TurnRenderer(console, self.log, lambda: self.session.session_id if self.session else None,
                                     inline_images=str(app.settings.typed["plots.inline"]))
        self.renderer.redact = app.redactor.redact  # what the screen shows is redacted as what is stored
        self.bus.subscribe(self.renderer.handle)
        self.activity = ModelActivity()
        self.bus.subscribe(self.activity.handle)
        # (text for the model, what the person sees, echo it?): a skill typed at the prompt is on screen
        # already (prompt-toolkit leaves the line), a first question from the command line is not.
        self.queued: list[tuple[str, str | None, bool]] = []
        self._typed = False  # handling a line typed at a prompt that stays on screen
        self.running = True
        self.state: dict[str, Any] = {"turn_log": self.log, "repl": self}
        self.guard: InterruptGuard | None = None
        self.terminated = False
        self.reader = reader or default_reader(app)
        self.inputs = LineInputs(app, console)  # @FILE and !command

    # --- sessions ----------------------------------------------------------------------------
    def _open(self, resume: str | None = None, continue_latest: bool = False, fork: bool = False,
              llm: Model | None = None, new_id: str | None = None) -> AgentSession:
        from astro_cli.agent.factory import NothingToContinue, open_session, permission_policy

        permissions = permission_policy(self.app, asker=self.ask_permission)
        try:
            return open_session(self.app, self.bus, permissions, resume=resume, continue_latest=continue_latest,
                                fork=fork, llm=llm, new_id=new_id)
        except NothingToContinue:  # `astro --continue` in a new folder: say so, and start afresh
            self.console.print(Text("no earlier session in this folder to continue", style="dim"))
            return open_session(self.app, self.bus, permissions, llm=llm)

    def open(self, resume: str | None = None, continue_latest: bool = False, fork: bool = False,
             new_id: str | None = None) -> None:
        from astro_cli import __version__

        # What a session shows while it opens (a resumed task plan) is printed after the banner.
        self.renderer.hold()
        try:
            self.session = self._open(resume=resume, continue_latest=continue_latest, fork=fork, new_id=new_id)
            register_builtins(self.app)
            model = self.session.model
            self.console.print(Text.assemble(
                ("astro ", "bold"), (__version__, "bold"), f" · {visible(model)} · ", (visible(str(self.app.workspace.root)), "dim"),
                *([(" (workspace found above this folder)", "dim")] if found_above(self.app.workspace.root) else []),
            ))
            resumed = (resume or continue_latest or fork) and self.session.messages
            self._describe_session(("forked" if fork else "resumed") if resumed else "new")
            self.console.print(Text(KEYS_HELP + " · /help lists the commands", style="dim"))
        finally:
            self.renderer.release()

    def offer_fresh_database(self, problem: DatabaseUnusable) -> bool:
        """A damaged database: on a terminal, offer to keep it aside and start a fresh one."""
        from astro_cli.store.db_errors import quarantine

        if not sys.stdin.isatty():
            return False
        self.console.print(Text(visible(str(problem)), style="yellow"))
        try:
            answer = self.reader.ask("keep the damaged file aside and start a fresh database? [y/N] ")
        except (EOFError, KeyboardInterrupt):
            return False
        if answer.strip().lower() not in ("y", "yes"):
            return False
        kept = quarantine(problem.path)
        self.app.keep_database = True  # the fresh database was asked for: it stays even if nothing is written
        self.console.print(Text(f"the damaged database is kept as {visible(str(kept))}", style="dim"))
        return True

    def _describe_session(self, how: str) -> None:
        session = self.session
        assert session is not None
        if how == "new" or not session.messages:
            self.console.print(Text(f"new session {session.session_id}", style="dim"))
            return
        origin = f", a copy of {session.forked_from}" if session.forked_from else ""
        self.console.print(Text(
            f"{how} session {session.session_id} ({len(session.messages)} messages{origin})", style="dim"))
        # The researcher's own last question and the answer to it (not nudges or recovery notes).
        stored = [m for m in self.app.sessions.messages(session.session_id) if m.kind == "message"]
        question = next((m for m in reversed(stored) if m.role == "user"), None)
        answer = next((m for m in reversed(stored) if m.role == "assistant" and m.message.get("content")), None)
        if question is not None:
            self.console.print(Text(f"  last question: {one_line(question.message['content'], 100)}", style="dim"))
        if answer is not None and (question is None or answer.seq > question.seq):
            self.console.print(Text(f"  last answer: {one_line(answer.message['content'], 100)}", style="dim"))

    def new_session(self) -> None:
        # /clear: a fresh conversation; a model /model chose stays, else the configuration picks again.
        kept = self.session.llm if self.session is not None and self.session.llm.current.switched else None
        old, self.session = self.session, self._open(llm=kept)
        if old is not None:
            old.stop("cleared")
        self.log.reset()
        self._describe_session("new")

    def switch_session(self, session_id: str) -> None:
        from astro_cli.agent.factory import SessionBusy, SessionNotFound

        row = self.app.sessions.get(session_id)
        if self.session is not None and row is not None and row["id"] == self.session.session_id:
            self.console.print(f"already in session {escape(self.session.session_id)}")
            return
        self.renderer.hold()
        try:
            try:
                new = self._open(resume=session_id)
            except (SessionNotFound, SessionBusy) as exc:
                self.console.print(Text(visible(str(exc)), style="yellow"))
                return
            old, self.session = self.session, new
            if old is not None:
                old.stop("switched")
            self.log.reset()
            self._describe_session("resumed")
        finally:
            self.renderer.release()

    def stop(self) -> None:
        self.running = False

    def terminate(self, signum: int = 0, frame: Any = None) -> None:
        """SIGTERM: stop the running turn as Ctrl-C would, then leave the REPL."""
        self.terminated = True
        self.running = False
        if self.guard is not None and self.session is not None:  # a turn is running: keep its partial answer
            self.session.interrupter.interrupt(signum or signal.SIGTERM)
            return
        raise KeyboardInterrupt

    # --- the loop ----------------------------------------------------------------------------
    def run(self) -> None:
        while self.running:
            shown = None
            typed = False
            if self.queued:
                text, shown, echo = self.queued.pop(0)
                if echo:
                    self.console.print(Text(f"> {one_line(shown or text, self.console.width - 4)}", style="dim"))
            else:
                try:
                    text = self.reader.read()
                except KeyboardInterrupt:
                    if self.running:
                        self.console.print(Text(QUIT_HINT, style="dim"))
                    continue
                except EOFError:
                    break
                typed = isinstance(self.reader, PromptReader)
            self._typed = typed
            try:
                self.handle(text, shown)
            finally:
                self._typed = False
        self._close()

    def _close(self) -> None:
        if self.session is not None:
            self.session.stop("exit")
            if self.session.messages:
                sid = self.session.session_id
                self.console.print(Text(f"session {sid} is saved · astro --resume {sid} continues it", style="dim"))

    def handle(self, text: str, shown: str | None = None) -> None:
        """`shown` is what the person typed when `text` is what a command made of it (a skill's body)."""
        stripped = text.strip()
        if not stripped:
            return
        match = SLASH.match(stripped) if shown is None else None
        if match:
            self.slash(match.group(1), (match.group(2) or "").strip())
        elif shown is None and stripped.startswith("!"):
            assert self.session is not None
            self.inputs.shell(self.session, stripped[1:].strip())
        else:
            self.turn(text, title=shown)

    def queue(self, text: str, shown: str | None = None) -> None:
        self.queued.append((text, shown, not self._typed))

    def context(self) -> SlashContext:
        return SlashContext(
            app=self.app, console=self.console, session=self.session, queue_prompt=self.queue,
            new_session=self.new_session, switch_session=self.switch_session, exit=self.stop, state=self.state,
            activity=self.activity,
        )

    def slash(self, name: str, args: str) -> None:
        table = slash_commands(self.app)
        ctx = self.context()
        try:
            command = table.get(name)
            if command is not None:
                command.handler(ctx, args)
                return
            if table.fallback(ctx, name, args):
                return
            close = difflib.get_close_matches(name, list(table), n=1)
            guess = f" (did you mean /{close[0]}?)" if close else ""
            self.console.print(Text(f"unknown command /{one_line(name, 60)}{one_line(guess, 80)}; /help lists the commands",
                                   style="yellow"))
        except KeyboardInterrupt:
            self.console.print(Text("cancelled", style="dim"))
        except Exception as exc:  # noqa: BLE001 - a command's failure must not end the REPL
            self.console.print(Text(f"error: /{one_line(name, 60)} failed: {visible(str(exc))}", style="red"))

    def turn(self, text: str, title: str | None = None) -> None:
        session = self.session
        assert session is not None
        message = self.inputs.prepare(session, text, typed=title is None)
        if message is None:
            return
        title = title or (text.strip().splitlines()[0] if text.strip() else None)  # the typed line, not the files
        with InterruptGuard(session) as guard:
            self.guard = guard
            try:
                session.run_turn(message, title=title)
            except KeyboardInterrupt:  # escaped the loop's own handling; the turn is over either way
                self.renderer.settle()
                self.console.print(Text("interrupted", style="yellow"))
            except Exception as exc:  # noqa: BLE001 - one sentence, and the session goes on
                self.renderer.settle()
                self.console.print(Text(f"error: {visible(str(exc))}", style="bold red"))
            finally:
                self.guard = None

    # --- permission ----------------------------------------------------------------------------
    def ask_permission(self, tool: Tool, arguments: dict[str, Any]) -> str:
        """The PermissionPolicy asker: yes / no / always (for this session). Ctrl-C cancels the turn."""
        self.renderer.settle()
        self.console.print(Text.assemble(("permission needed: ", "bold yellow"), (visible(tool.name), "bold")))
        for line in approval_lines(arguments, tool.key_argument or None):
            self.console.print(line)
        try:
            while True:
                try:
                    decision = parse_permission(self.reader.ask(PERMISSION_QUESTION))
                except EOFError:
                    decision = "no"
                if decision is not None:
                    break
                self.console.print(Text("answer y (yes), n (no) or a (always for this session)", style="dim"))
        finally:
            if self.guard is not None:
                self.guard.install()
        if decision != "no":
            self.renderer.resume_tool_spinner()
        return decision
