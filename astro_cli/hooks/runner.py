"""Lifecycle hooks: commands from config (Claude Code's settings.json shape) and Python callbacks.

A hook gets the event as JSON on stdin, and an environment without secrets (provider keys, tokens,
passwords) unless its entry names them in `pass_env`. Exit 0 goes on (stdout JSON may carry decision, reason,
updatedInput, updatedOutput, additionalContext); exit 2 blocks, with stderr as the reason the model
reads; any other exit code, a timeout or a command that cannot start is a warning, and a block
when config `fail_closed` is true. Only PreToolUse, PostToolUse and SubagentStart can block;
other events turn a block into a warning. Hooks of one event run one after another, in config
order, then plugin callbacks; the first block stops the rest.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.agent import events as ev
from astro_cli.security.sandbox import sandbox
from astro_cli.security.secrets import environment_without_secrets
from astro_cli.tools.command import stop_command

if TYPE_CHECKING:
    from astro_cli.app import AppContext

EVENTS = (
    "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "StepComplete",
    "PreCompact", "PostCompact", "SubagentStart", "SubagentStop", "SessionStop",
)
BLOCKING = frozenset({"PreToolUse", "PostToolUse", "SubagentStart"})
# Events whose plain (non-JSON) stdout becomes context, as in Claude Code.
CONTEXT_EVENTS = frozenset({"SessionStart", "UserPromptSubmit"})
DEFAULT_TIMEOUT = 60.0
UNSTARTABLE_CODES = (126, 127)  # the shell's "not executable" and "not found"

Notify = Callable[[ev.Event], None]
PythonCallback = Callable[[dict[str, Any]], "dict[str, Any] | None"]


@dataclass
class Hook:
    """One configured hook: a shell command, or a Python callback from a plugin."""

    event: str
    matcher: str = ""
    command: str = ""
    timeout: float = DEFAULT_TIMEOUT
    pass_env: tuple[str, ...] = ()  # secret variables this hook is given (none by default)
    callback: PythonCallback | None = None
    plugin: str = ""
    where: str = ""  # "hooks.PreToolUse[0].hooks[1]" or "plugin myplugin"
    pattern: re.Pattern[str] | None = None

    @property
    def label(self) -> str:
        return f"plugin {self.plugin} ({getattr(self.callback, '__qualname__', 'callback')})" if self.callback else self.command

    def matches(self, target: str | None) -> bool:
        if self.pattern is None or target is None:
            return True
        return self.pattern.fullmatch(target) is not None


def compile_matcher(matcher: str) -> re.Pattern[str] | None:
    """None matches everything (empty, absent or '*'); otherwise a regex matched against the whole name."""
    if not matcher or matcher.strip() in ("", "*"):
        return None
    return re.compile(matcher)


def parse_hooks(config: Any) -> tuple[list[Hook], list[str]]:
    """Hooks from the `hooks:` setting, and one sentence per entry that had to be skipped."""
    hooks: list[Hook] = []
    problems: list[str] = []
    if not config:
        return hooks, problems
    if not isinstance(config, dict):
        return hooks, [f"config 'hooks' should be a mapping of event names, not {type(config).__name__}."]
    for event, groups in config.items():
        if event not in EVENTS:
            problems.append(f"hooks: unknown event '{event}' is ignored (known: {', '.join(EVENTS)}).")
            continue
        if not isinstance(groups, list):
            problems.append(f"hooks.{event} should be a list of {{matcher, hooks}} entries; it is ignored.")
            continue
        for i, group in enumerate(groups):
            where = f"hooks.{event}[{i}]"
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                problems.append(f"{where} needs a 'hooks' list; it is ignored.")
                continue
            matcher = group.get("matcher") or ""
            try:
                pattern = compile_matcher(str(matcher))
            except re.error as exc:
                problems.append(f"{where}: matcher {matcher!r} is not a valid regular expression ({exc}); ignored.")
                continue
            for j, entry in enumerate(group["hooks"]):
                hook = _parse_entry(entry, event, str(matcher), pattern, f"{where}.hooks[{j}]", problems)
                if hook is not None:
                    hooks.append(hook)
    return hooks, problems


def _parse_entry(
    entry: Any, event: str, matcher: str, pattern: re.Pattern[str] | None, where: str, problems: list[str]
) -> Hook | None:
    if not isinstance(entry, dict):
        problems.append(f"{where} should be a mapping like {{type: command, command: ...}}; ignored.")
        return None
    kind = entry.get("type", "command")
    if kind != "command":
        problems.append(f"{where}: type '{kind}' is not supported (only 'command'); ignored.")
        return None
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        problems.append(f"{where} has no command; ignored.")
        return None
    timeout = entry.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        problems.append(f"{where}: timeout {timeout!r} should be a positive number of seconds; {DEFAULT_TIMEOUT:g} is used.")
        timeout = DEFAULT_TIMEOUT
    pass_env = entry.get("pass_env") or []
    if isinstance(pass_env, str):
        pass_env = [pass_env]
    if not isinstance(pass_env, list) or not all(isinstance(name, str) for name in pass_env):
        problems.append(f"{where}: pass_env should be a list of variable names; no secret is passed.")
        pass_env = []
    return Hook(event, matcher, command, float(timeout), tuple(pass_env), where=where, pattern=pattern)


@dataclass
class HookRun:
    """What one hook did: ok (exit 0), block (exit 2 or a block decision), or a failure."""

    hook: Hook
    status: str  # ok | block | failed | timeout | unstartable
    exit_code: int | None = None
    output: dict[str, Any] = field(default_factory=dict)
    text: str = ""  # plain stdout (exit 0) or stderr (otherwise)


@dataclass
class HookOutcome:
    """All hooks of one event, combined: what the caller must do."""

    blocked: bool = False
    reason: str = ""
    updated_input: dict[str, Any] | None = None
    updated_output: str | None = None
    contexts: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    ran: int = 0


class HookRunner:
    """Runs the hooks of the app; one per AppContext (app.service)."""

    def __init__(self, app: AppContext) -> None:
        self.app = app
        self.hooks, self.problems = parse_hooks(app.settings.typed["hooks"])
        self.fail_closed = bool(app.settings.typed["fail_closed"])
        self._lock = threading.Lock()
        self._reported: set[str] = set()
        self._problems_reported = False

    # --- registration ------------------------------------------------------------------------
    def add_python(self, event: str, callback: PythonCallback, matcher: str | None = None, plugin: str = "") -> None:
        """A plugin's callback for `event`; raises ValueError for an unknown event or a bad matcher."""
        if event not in EVENTS:
            raise ValueError(f"unknown hook event '{event}' (known: {', '.join(EVENTS)})")
        pattern = compile_matcher(matcher or "")
        self.hooks.append(Hook(event, matcher or "", callback=callback, plugin=plugin, where=f"plugin {plugin}",
                               pattern=pattern))

    def has(self, event: str) -> bool:
        return any(hook.event == event for hook in self.hooks)

    def report_problems(self, notify: Notify) -> None:
        """Tell the user once per process about hook entries and plugins that could not be used."""
        with self._lock:
            if self._problems_reported:
                return
            self._problems_reported = True
            problems = list(self.problems)
        for problem in problems:
            notify(ev.Notice(level="warning", text=problem))

    # --- running -----------------------------------------------------------------------------
    def fire(
        self,
        event: str,
        data: dict[str, Any],
        session_id: str,
        target: str | None = None,
        notify: Notify | None = None,
    ) -> HookOutcome:
        """Run the hooks of `event` whose matcher accepts `target`, and combine what they said."""
        outcome = HookOutcome()
        matching = [hook for hook in self.hooks if hook.event == event and hook.matches(target)]
        if not matching:
            return outcome
        payload = {"session_id": session_id, "cwd": str(self.app.workspace.root), "hook_event_name": event, **data}
        for hook in matching:
            if outcome.updated_input is not None and "tool_input" in payload:
                payload["tool_input"] = outcome.updated_input
            run = self._run_python(hook, payload) if hook.callback else self._run_command(hook, payload, notify)
            outcome.ran += 1
            self._apply(event, run, outcome, notify)
            if outcome.blocked:
                break
        return outcome

    def _apply(self, event: str, run: HookRun, outcome: HookOutcome, notify: Notify | None) -> None:
        block_reason: str | None = None
        if run.status == "ok":
            out = dict(run.output)
            specific = out.pop("hookSpecificOutput", None)
            if isinstance(specific, dict):
                out.update({k: v for k, v in specific.items() if v is not None})
            decision = str(out.get("decision") or out.get("permissionDecision") or "").lower()
            reason = out.get("reason") or out.get("permissionDecisionReason") or ""
            if decision in ("block", "deny"):
                block_reason = str(reason) or f"a {event} hook refused it"
            if isinstance(out.get("updatedInput"), dict):
                outcome.updated_input = out["updatedInput"]
            if isinstance(out.get("updatedOutput"), str):
                outcome.updated_output = out["updatedOutput"]
            if isinstance(out.get("additionalContext"), str) and out["additionalContext"].strip():
                outcome.contexts.append(out["additionalContext"].strip())
            elif not run.output and run.text.strip() and event in CONTEXT_EVENTS:
                outcome.contexts.append(run.text.strip())
            if isinstance(out.get("systemMessage"), str) and notify:
                notify(ev.Notice(level="info", text=f"{event} hook: {out['systemMessage']}"))
        elif run.status == "block":
            block_reason = run.text.strip() or f"a {event} hook refused it (exit 2)"
        else:
            warning = self._failure_text(event, run)
            if run.status != "unstartable" or self._first_report(run.hook):
                outcome.warnings.append(warning)
                if notify:
                    notify(ev.Notice(level="warning", text=warning))
            if self.fail_closed:
                block_reason = f"{warning} (blocked because config 'fail_closed' is true)"
        if block_reason is None:
            return
        if event in BLOCKING:
            outcome.blocked = True
            outcome.reason = block_reason
        else:
            warning = f"a {event} hook asked to block, which this event cannot do: {block_reason}"
            outcome.warnings.append(warning)
            if notify:
                notify(ev.Notice(level="warning", text=warning))

    def _first_report(self, hook: Hook) -> bool:
        key = f"{hook.where}:{hook.label}"
        with self._lock:
            if key in self._reported:
                return False
            self._reported.add(key)
            return True

    @staticmethod
    def _failure_text(event: str, run: HookRun) -> str:
        detail = run.text.strip().splitlines()[0][:300] if run.text.strip() else ""
        detail = f": {detail}" if detail else ""
        label = run.hook.label
        if run.status == "unstartable":
            return (
                f"the {event} hook `{label}` could not be started{detail}; "
                "this is reported once: fix the command or remove the hook"
            )
        if run.status == "timeout":
            return f"the {event} hook `{label}` did not finish within {run.hook.timeout:g} s and was stopped"
        code = f" (exit {run.exit_code})" if run.exit_code is not None else ""
        return f"the {event} hook `{label}` failed{code}{detail}"

    def _run_command(self, hook: Hook, payload: dict[str, Any], notify: Notify | None = None) -> HookRun:
        root = str(self.app.workspace.root)
        fence = sandbox(self.app)
        said = fence.tell_once() if notify else None
        if said and notify:
            notify(ev.Notice(level="warning", text=said))
        env = {
            **environment_without_secrets(os.environ, keep=hook.pass_env),
            "ASTRO_PROJECT_DIR": root, "CLAUDE_PROJECT_DIR": root, "ASTRO_HOOK_EVENT": hook.event,
        }
        data = json.dumps(payload, ensure_ascii=False, default=str).encode()
        try:
            process = subprocess.Popen(
                fence.wrap(["/bin/sh", "-c", hook.command], self.app.workspace.root), cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True,
            )
        except OSError as exc:
            return HookRun(hook, "unstartable", text=exc.strerror or str(exc))
        try:
            out, err = process.communicate(data, timeout=hook.timeout)
        except subprocess.TimeoutExpired:
            stop_command(process)
            return HookRun(hook, "timeout")
        redact = self.app.redactor.redact  # a hook given a key (pass_env) may still print it
        stdout = redact(out.decode("utf-8", errors="replace"))
        stderr = redact(err.decode("utf-8", errors="replace"))
        code = process.returncode
        if code == 0:
            return HookRun(hook, "ok", 0, output=_json_object(stdout), text=stdout)
        if code == 2:
            return HookRun(hook, "block", 2, text=stderr)
        if code in UNSTARTABLE_CODES:
            return HookRun(hook, "unstartable", code, text=stderr)
        return HookRun(hook, "failed", code, text=stderr or stdout)

    @staticmethod
    def _run_python(hook: Hook, payload: dict[str, Any]) -> HookRun:
        assert hook.callback is not None
        try:
            result = hook.callback(json.loads(json.dumps(payload, default=str)))
        except Exception as exc:  # noqa: BLE001 - a plugin bug is a hook failure, not a crash
            return HookRun(hook, "failed", text=f"{type(exc).__name__}: {exc}")
        if result is None:
            return HookRun(hook, "ok")
        if not isinstance(result, dict):
            return HookRun(hook, "failed", text=f"returned {type(result).__name__}, expected a dict or None")
        return HookRun(hook, "ok", output=result)


def _json_object(stdout: str) -> dict[str, Any]:
    """stdout parsed as a JSON object, or {} when it is plain text."""
    text = stdout.strip()
    if not text.startswith("{"):
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def hook_runner(app: AppContext) -> HookRunner:
    """The app's runner, created on first use (plugins add callbacks to it while installing)."""
    return app.service(HookRunner, lambda: HookRunner(app))
