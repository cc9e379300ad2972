"""Reading what the user types: the prompt-toolkit session (history, keys, completion) and the
yes / no / always question asked before a tool that changes things runs.

Keys: Enter sends; Esc-Enter (Alt-Enter in most terminals) or a trailing backslash inserts a new
line; Ctrl-C clears the line, and on an empty line returns KeyboardInterrupt so the REPL can say
how to quit; Ctrl-D on an empty line exits. When stdin is not a terminal, lines are read plainly.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import CompleteEvent, Completer, Completion
    from prompt_toolkit.document import Document
    from prompt_toolkit.history import FileHistory
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent


PROMPT = "> "
CONTINUATION = ". "

# Lines that look like credentials never reach the history file: secrets by shape or known value
# (security/secrets.py), and anything typed as `token = ...`.
_SECRET_PATTERNS = re.compile(r"(api[_-]?key|token|secret|password)\s*[=:]\s*\S{6,}", re.IGNORECASE)


class Reader(Protocol):
    """What the REPL and first run read the user's input through (PromptReader, PlainReader, a test's script)."""

    def read(self) -> str: ...
    def ask(self, question: str) -> str: ...
    def ask_secret(self, question: str) -> str: ...


def make_history(path: Path) -> FileHistory:
    """A FileHistory in ASTRO_HOME that refuses to store lines carrying credentials."""
    from prompt_toolkit.history import FileHistory

    from astro_cli.keystore import KeyStore
    from astro_cli.security.secrets import Redactor, holds_secret_shape

    known = Redactor.from_environment(os.environ, KeyStore.at(path.parent).secrets())  # the history lives in ASTRO_HOME

    class PrivateHistory(FileHistory):
        def store_string(self, string: str) -> None:
            if _SECRET_PATTERNS.search(string) or holds_secret_shape(string) or known.contains_secret(string):
                return
            if not path.exists():
                from astro_cli.security.writer import Place, open_append

                with open_append(Place.beside(path), mode=0o600):  # created private; a link there is refused
                    pass
            super().store_string(string)

    return PrivateHistory(str(path))


def _slash_completer(commands: Callable[[], dict[str, str]], session_ids: Callable[[], list[str]]) -> Completer:
    from prompt_toolkit.completion import Completer, Completion

    class SlashCompleter(Completer):
        """Completes `/name` from the live command table (skills included), and session ids after `/resume `."""

        def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
            text = document.text_before_cursor
            if not text.startswith("/") or "\n" in text:
                return
            if " " not in text:
                word = text[1:]
                for name, help_text in sorted(commands().items()):
                    if name.startswith(word):
                        yield Completion("/" + name, start_position=-len(text), display_meta=help_text)
            elif text.startswith("/resume ") and text.count(" ") == 1:
                word = text.split(" ", 1)[1]
                for session_id in session_ids():
                    if session_id.startswith(word):
                        yield Completion(session_id, start_position=-len(word))

    return SlashCompleter()


def _key_bindings() -> KeyBindings:
    from prompt_toolkit.key_binding import KeyBindings

    bindings = KeyBindings()

    @bindings.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @bindings.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.complete_state and buffer.complete_state.current_completion:
            buffer.apply_completion(buffer.complete_state.current_completion)
        if buffer.document.text_before_cursor.endswith("\\") and buffer.document.is_cursor_at_the_end:
            buffer.delete_before_cursor(1)
            buffer.insert_text("\n")
            return
        buffer.validate_and_handle()

    @bindings.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.text:
            buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt())

    return bindings


class PromptReader:
    """Reads the user's lines with prompt-toolkit; `ask` poses a short question without history."""

    def __init__(
        self,
        history_path: Path,
        commands: Callable[[], dict[str, str]],
        session_ids: Callable[[], list[str]],
        input: Any = None,
        output: Any = None,
    ) -> None:
        from prompt_toolkit import PromptSession

        self.session: PromptSession[str] = PromptSession(
            history=make_history(history_path),
            completer=_slash_completer(commands, session_ids),
            complete_while_typing=True,
            key_bindings=_key_bindings(),
            prompt_continuation=lambda width, line_number, soft_wrap: CONTINUATION.rjust(width),
            input=input,
            output=output,
            enable_history_search=False,
        )
        self._io = {"input": input, "output": output}

    def read(self) -> str:
        """The next input; raises KeyboardInterrupt (Ctrl-C on an empty line) or EOFError (Ctrl-D)."""
        return self.session.prompt(PROMPT)

    def ask(self, question: str) -> str:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import InMemoryHistory

        asker: PromptSession[str] = PromptSession(history=InMemoryHistory(), **self._io)
        return asker.prompt(question)

    def ask_secret(self, question: str) -> str:
        """A question whose answer is not echoed and kept in no history (an API key)."""
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import InMemoryHistory

        asker: PromptSession[str] = PromptSession(history=InMemoryHistory(), is_password=True, **self._io)
        return asker.prompt(question)


class PlainReader:
    """stdin is not a terminal (piped lines): no editing, no history file, same commands."""

    def read(self) -> str:
        sys.stdout.write(PROMPT)
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        line = line.rstrip("\n")
        sys.stdout.write(line + "\n")  # nothing echoes piped input; show what was read
        return line

    def ask(self, question: str) -> str:
        sys.stdout.write(question)
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line.strip()

    def ask_secret(self, question: str) -> str:
        return self.ask(question)  # piped input is not shown anyway


def parse_permission(answer: str) -> str | None:
    """'y', 'yes' -> yes; 'n', 'no' or nothing -> no; 'a', 'always' -> always; else None (ask again)."""
    word = answer.strip().lower()
    if word in ("y", "yes"):
        return "yes"
    if word in ("", "n", "no"):
        return "no"
    if word in ("a", "always"):
        return "always"
    return None
